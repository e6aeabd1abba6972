"""Text indexing: tokenizer, stop lists, stemming, sparse binary/count term matrices.

Defaults reproduce the thesis's indexing (Karčiauskas 2002, sec. 4.1.2).
"""
from hbnlab.text.indexing import IndexedCorpus, IndexingConfig, TermIndexer, index_corpus
from hbnlab.text.stopwords import STOPLIST_NAMES, load_stopwords

__all__ = ["IndexingConfig", "TermIndexer", "IndexedCorpus", "index_corpus", "load_stopwords", "STOPLIST_NAMES"]
