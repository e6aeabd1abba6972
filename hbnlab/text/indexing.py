"""Text indexing: tokens, stop words, stemming, and sparse document-term matrices.

The thesis's indexing (Karčiauskas 2002, sec. 4.1.2): title and body as one text, lowercase, words are
"sequences of alpha symbols delimited by any other symbols", function words removed, no
stemming, every term of the training documents kept except those occurring in only one
training document, binary features.  :class:`IndexingConfig` holds these choices (defaults =
the thesis) and :class:`TermIndexer` applies them.

Pipeline for one text, in this order:

1. tokens = maximal runs of the ASCII letters ``A-Z a-z`` (everything else separates tokens:
   digits, punctuation, apostrophes, accented letters); ``tokens="alphanumeric"`` makes them
   runs of letters and digits, so numbers ("1987", "mln4") become terms too;
2. lowercase each token (``lowercase=True``);
3. drop stop words (compared case-insensitively with the chosen list);
4. stem with the original Porter algorithm (``stemming="porter"``; snowballstemmer's
   ``"porter"`` algorithm, M. F. Porter, "An algorithm for suffix stripping", 1980), or with
   Porter's revised English stemmer ("Porter2", snowballstemmer's ``"english"``;
   ``stemming="porter2"``).

Tokenizing is per text (a regular expression), the per-token work is a dictionary lookup into a
cache of normalised forms, and the matrix is assembled once from flat index arrays.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, fields, replace

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from hbnlab.text.stopwords import STOPLIST_NAMES, load_stopwords

STEMMERS = (None, "porter", "porter2")
#: snowballstemmer's algorithm of each stemmer
_SNOWBALL = {"porter": "porter", "porter2": "english"}
#: ``tokens=`` -> the token pattern; "letters" is the thesis's "sequences of alpha symbols" (sec. 4.1.2)
TOKEN_PATTERNS = {"letters": re.compile(r"[A-Za-z]+"), "alphanumeric": re.compile(r"[A-Za-z0-9]+")}
_STOP = object()  # cache marker: the token is a stop word


@dataclass(frozen=True)
class IndexingConfig:
    """How texts become term matrices.  Defaults reproduce the thesis (Karčiauskas 2002, sec. 4.1.2).

    Parameters
    ----------
    lowercase : bool, default True
        Lowercase tokens.  Tokens are maximal runs of ASCII letters either way.
    stopwords : {"thesis", "english", "smart", "sklearn", "none"} or tuple of str, default "thesis"
        Stop list (see :mod:`hbnlab.text.stopwords`); a tuple gives the words explicitly (a file's
        words, :func:`hbnlab.text.stopwords.resolve_stop_words`).  Matching ignores case.
    stemming : {None, "porter", "porter2"}, default None
        ``"porter"`` applies the original Porter (1980) stemmer after stop-word removal,
        ``"porter2"`` Porter's revised English (Snowball) stemmer.  The thesis tried stemming and
        found it slightly worse for naive Bayes, so uses none.
    min_df : int, default 2
        Keep a term only if it occurs in at least ``min_df`` training documents (the thesis drops
        terms "that appear only in one document").
    binary : bool, default True
        1.0 for presence (the thesis's binary features); else the number of occurrences.
    max_features : int or None, default None
        Keep only the ``max_features`` terms with the highest training document frequency
        (ties by term, alphabetically) among those passing ``min_df``.
    tokens : {"letters", "alphanumeric"}, default "letters"
        Tokens are maximal runs of ASCII letters (the thesis's), or of letters and digits.
    """

    lowercase: bool = True
    stopwords: object = "thesis"
    stemming: str | None = None
    min_df: int = 2
    binary: bool = True
    max_features: int | None = None
    tokens: str = "letters"

    def __post_init__(self):
        if not isinstance(self.lowercase, (bool, np.bool_)):
            raise ValueError(f"lowercase must be True or False, got {self.lowercase!r}")
        sw = self.stopwords
        if isinstance(sw, str):
            if sw not in STOPLIST_NAMES:
                raise ValueError(f"stopwords must be one of {STOPLIST_NAMES} or a tuple of words, got {sw!r}")
        elif isinstance(sw, (tuple, list, frozenset, set)):
            words = tuple(sorted(sw)) if isinstance(sw, (set, frozenset)) else tuple(sw)
            bad = [w for w in words if not isinstance(w, str)]
            if bad:
                raise ValueError(f"stopwords must be strings, got {bad[0]!r}")
            object.__setattr__(self, "stopwords", words)
        else:
            raise ValueError(f"stopwords must be one of {STOPLIST_NAMES} or a tuple of words, got {sw!r}")
        if self.stemming not in STEMMERS:
            raise ValueError(f"stemming must be one of {STEMMERS}, got {self.stemming!r}")
        if isinstance(self.min_df, bool) or not isinstance(self.min_df, (int, np.integer)) or self.min_df < 1:
            raise ValueError(f"min_df must be an integer >= 1 (a number of training documents), got {self.min_df!r}")
        if not isinstance(self.binary, (bool, np.bool_)):
            raise ValueError(f"binary must be True or False, got {self.binary!r}")
        mf = self.max_features
        if mf is not None and (isinstance(mf, bool) or not isinstance(mf, (int, np.integer)) or mf < 1):
            raise ValueError(f"max_features must be an integer >= 1 or None, got {mf!r}")
        if self.tokens not in TOKEN_PATTERNS:
            raise ValueError(f"tokens must be one of {tuple(TOKEN_PATTERNS)}, got {self.tokens!r}")

    def to_dict(self) -> dict:
        """Plain JSON-serialisable dict (a tuple stop list becomes a list)."""
        d = asdict(self)
        if isinstance(d["stopwords"], tuple):
            d["stopwords"] = list(d["stopwords"])
        return d

    @classmethod
    def from_dict(cls, d: dict) -> IndexingConfig:
        """Inverse of :meth:`to_dict`; unknown keys are an error naming them."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(f"unknown IndexingConfig field(s) {unknown}; expected a subset of {sorted(known)}")
        d = dict(d)
        if isinstance(d.get("stopwords"), list):
            d["stopwords"] = tuple(d["stopwords"])
        return cls(**d)

    def stopword_set(self) -> frozenset:
        """The stop words as a lower-case frozenset."""
        if isinstance(self.stopwords, str):
            return load_stopwords(self.stopwords)
        return frozenset(w.lower() for w in self.stopwords)


class TermIndexer(BaseEstimator):
    """Turn texts into a sparse document-term matrix (thesis sec. 4.1.2 by default).

    Parameters
    ----------
    config : IndexingConfig, optional
        Defaults to ``IndexingConfig()``.

    Attributes
    ----------
    vocabulary_ : list of str
        The terms, sorted alphabetically; column ``j`` of every matrix is ``vocabulary_[j]``.
    term_index_ : dict
        Term -> column.
    document_frequency_ : ndarray of int64
        Number of training documents containing each term.
    n_documents_ : int
        Number of training documents.

    Examples
    --------
    >>> ix = TermIndexer(IndexingConfig(min_df=1))
    >>> X = ix.fit_transform(["The cat sat.", "A cat, a hat!"])
    >>> ix.vocabulary_
    ['cat', 'hat', 'sat']
    >>> X.toarray()
    array([[1., 0., 1.],
           [1., 1., 0.]])
    >>> ix.token_spans("A cat!")
    [(2, 5, 'cat')]
    """

    def __init__(self, config: IndexingConfig | None = None):
        self.config = config

    @classmethod
    def from_vocabulary(cls, config: IndexingConfig | None, vocabulary: Sequence[str]) -> TermIndexer:
        """A fitted indexer over a given vocabulary, without training texts.

        :meth:`transform` then maps texts exactly as an indexer fitted (with the same ``config``)
        on a corpus whose vocabulary is ``vocabulary``; this is how a saved model file rebuilds
        its text pipeline from the stored settings and terms.

        Parameters
        ----------
        config : IndexingConfig or None
            The tokenisation, stop words, stemming and binary/count settings (``min_df`` and
            ``max_features`` act only in :meth:`fit`, so they do not matter here).
        vocabulary : sequence of str
            Column ``j`` of every matrix is ``vocabulary[j]``; any order, each term once.

        Returns
        -------
        TermIndexer
            With ``vocabulary_`` and ``term_index_`` from ``vocabulary``; no training documents
            are known, so ``document_frequency_`` is all zeros and ``n_documents_`` is 0.

        Raises
        ------
        ValueError
            If a term is not a string or is listed twice.

        Examples
        --------
        >>> ix = TermIndexer.from_vocabulary(IndexingConfig(), ["hat", "cat"])
        >>> ix.transform(["The cat sat.", "A hat"]).toarray()
        array([[0., 1.],
               [1., 0.]])
        """
        if isinstance(vocabulary, str):
            raise ValueError("vocabulary must be a sequence of terms, got a single str")
        vocabulary = list(vocabulary)
        term_index = {}
        for j, t in enumerate(vocabulary):
            if not isinstance(t, str):
                raise ValueError(f"vocabulary[{j}] must be a str, got {type(t).__name__} {t!r}")
            if t in term_index:
                raise ValueError(f"vocabulary[{j}] = {t!r} repeats vocabulary[{term_index[t]}]")
            term_index[t] = j
        ix = cls(config)
        ix.vocabulary_ = vocabulary
        ix.term_index_ = term_index
        ix.document_frequency_ = np.zeros(len(vocabulary), dtype=np.int64)
        ix.n_documents_ = 0
        return ix

    # ------------------------------------------------------------------ normalisation
    @property
    def _cfg(self) -> IndexingConfig:
        cfg = self.config if self.config is not None else IndexingConfig()
        if not isinstance(cfg, IndexingConfig):
            raise ValueError(f"config must be an IndexingConfig or None, got {type(cfg).__name__}")
        return cfg

    def _setup(self):
        """(Re)build the per-token cache for the current config."""
        cfg = self._cfg
        if getattr(self, "_cache_cfg", None) == cfg:
            return
        self._stop = cfg.stopword_set()
        self._token = TOKEN_PATTERNS[cfg.tokens]
        if cfg.stemming is not None:
            import snowballstemmer

            self._stem = snowballstemmer.stemmer(_SNOWBALL[cfg.stemming]).stemWord
        else:
            self._stem = None
        self._norm_cache = {}  # token as matched (after lowercasing) -> term, or _STOP
        self._col_cache = {}  # token -> column (or -1) for the fitted vocabulary
        self._cache_cfg = cfg

    def _normalize(self, tok: str):
        """Term for one (already lowercased if configured) token, or _STOP."""
        if tok.lower() in self._stop:
            return _STOP
        return self._stem(tok) if self._stem is not None else tok

    def _raw_tokens(self, text: str) -> list[str]:
        if not isinstance(text, str):
            raise ValueError(f"texts must be str, got {type(text).__name__}")
        if self._cfg.lowercase:
            # ASCII text: lowercasing first is equivalent and faster; other text is matched first
            # so that non-ASCII characters whose lowercase is ASCII (e.g. KELVIN SIGN) stay
            # separators, exactly as in token_spans.
            if text.isascii():
                return self._token.findall(text.lower())
            return [t.lower() for t in self._token.findall(text)]
        return self._token.findall(text)

    def _terms_of(self, toks: Iterable[str]) -> list[str]:
        cache = self._norm_cache
        out = []
        for t in toks:
            term = cache.get(t)
            if term is None:
                term = cache[t] = self._normalize(t)
            if term is not _STOP:
                out.append(term)
        return out

    # ------------------------------------------------------------------ public helpers
    def tokenize(self, text: str) -> list[str]:
        """The terms of ``text`` in order: tokens after lowercasing, stop-word removal and stemming.

        Terms outside the fitted vocabulary are included (no fit is needed).
        """
        self._setup()
        return self._terms_of(self._raw_tokens(text))

    def token_spans(self, text: str) -> list[tuple[int, int, str]]:
        """``(start, end, term)`` for every kept token, with ``text[start:end]`` the original
        characters (``end`` exclusive) and ``term`` what :meth:`tokenize` yields for it."""
        self._setup()
        lower = self._cfg.lowercase
        out = []
        for m in self._token.finditer(text):
            tok = m.group().lower() if lower else m.group()
            term = self._terms_of((tok,))
            if term:
                out.append((m.start(), m.end(), term[0]))
        return out

    # ------------------------------------------------------------------ matrix assembly
    def _doc_ids(self, texts, lookup) -> tuple[np.ndarray, np.ndarray]:
        """Flat column ids and row pointer for ``texts``; ``lookup`` maps a token to a column id
        (>= 0) or -1 (drop).  Binary mode keeps one id per distinct token."""
        binary = self._cfg.binary
        chunks, lengths = [], []
        for text in texts:
            toks = self._raw_tokens(text)
            if binary:
                toks = set(toks)
            ids = [lookup(t) for t in toks]
            chunks.append(ids)
            lengths.append(len(ids))
        flat = np.fromiter((i for ids in chunks for i in ids), dtype=np.int32,  # term ids < 2**31
                           count=int(sum(lengths)))
        indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        return flat, indptr

    @staticmethod
    def _assemble(flat, indptr, n_cols, col_map=None, binary=True) -> sp.csr_matrix:
        """CSR from flat ids: map through ``col_map`` (-1 = drop), sum duplicates, canonical.

        The matrix is built in CSR form from the documents' row pointer (the ids kept before each
        document's start), without a row index per entry or a COO copy."""
        cols = flat
        if col_map is not None:
            cols = np.full_like(flat, -1)
            known = flat >= 0
            cols[known] = col_map[flat[known]]
        keep = cols >= 0
        kept_before = np.zeros(keep.size + 1, dtype=np.int64)
        np.cumsum(keep, out=kept_before[1:])
        X = sp.csr_matrix((np.ones(int(kept_before[-1]), dtype=np.float64), cols[keep], kept_before[indptr]),
                          shape=(indptr.size - 1, n_cols))
        X.sum_duplicates()  # sorted indices, no duplicates: canonical format
        if binary:
            X.data[:] = 1.0
        return X

    def fit(self, texts: Sequence[str], y=None) -> TermIndexer:
        """Learn the vocabulary from training texts."""
        self.fit_transform(texts)
        return self

    def fit_transform(self, texts: Sequence[str], y=None) -> sp.csr_matrix:
        """Learn the vocabulary and return the training matrix (equal to ``transform(texts)``)."""
        if isinstance(texts, str):
            raise ValueError("texts must be a sequence of strings, got a single str")
        texts = list(texts)
        self._setup()
        cfg = self._cfg
        cache = self._norm_cache
        provisional: dict[str, int] = {}  # term -> provisional id
        raw_to_pid: dict[str, int] = {}

        def lookup(tok):
            pid = raw_to_pid.get(tok)
            if pid is None:
                term = cache.get(tok)
                if term is None:
                    term = cache[tok] = self._normalize(tok)
                pid = -1 if term is _STOP else provisional.setdefault(term, len(provisional))
                raw_to_pid[tok] = pid
            return pid

        flat, indptr = self._doc_ids(texts, lookup)
        terms = np.array(list(provisional), dtype=object)
        n_prov = terms.size
        # document frequency of every provisional term (binary pattern, duplicates merged)
        P = self._assemble(flat, indptr, n_prov, binary=True)
        df = np.bincount(P.indices, minlength=n_prov).astype(np.int64)
        keep = np.flatnonzero(df >= cfg.min_df)
        if cfg.max_features is not None and keep.size > cfg.max_features:
            # highest document frequency first, ties alphabetically
            order = sorted(keep.tolist(), key=lambda i: (-df[i], terms[i]))
            keep = np.array(order[: cfg.max_features], dtype=np.int64)
        kept_terms = terms[keep]
        alpha = np.argsort(kept_terms.astype(str), kind="stable") if keep.size else keep
        keep = keep[alpha]
        col_map = np.full(n_prov, -1, dtype=np.int64)
        col_map[keep] = np.arange(keep.size)

        self.vocabulary_ = [str(t) for t in terms[keep]]
        self.term_index_ = {t: j for j, t in enumerate(self.vocabulary_)}
        self.document_frequency_ = df[keep]
        self.n_documents_ = len(texts)
        self._col_cache = {tok: (int(col_map[pid]) if pid >= 0 else -1) for tok, pid in raw_to_pid.items()}
        return self._assemble(flat, indptr, keep.size, col_map=col_map, binary=cfg.binary)

    def transform(self, texts: Sequence[str]) -> sp.csr_matrix:
        """Matrix (n_texts, n_terms) over the fitted vocabulary; unknown terms are ignored.

        Returns
        -------
        scipy.sparse.csr_matrix of float64
            Canonical format (sorted indices, no duplicates); 1.0 for presence if
            ``config.binary`` else occurrence counts.
        """
        if not hasattr(self, "vocabulary_"):
            raise ValueError("TermIndexer is not fitted yet; call fit(texts) first")
        if isinstance(texts, str):
            raise ValueError("texts must be a sequence of strings, got a single str")
        self._setup()
        cols = self._col_cache
        cache = self._norm_cache
        index = self.term_index_

        def lookup(tok):
            c = cols.get(tok)
            if c is None:
                term = cache.get(tok)
                if term is None:
                    term = cache[tok] = self._normalize(tok)
                c = cols[tok] = -1 if term is _STOP else index.get(term, -1)
            return c

        flat, indptr = self._doc_ids(list(texts), lookup)
        return self._assemble(flat, indptr, len(self.vocabulary_), binary=self._cfg.binary)

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """The vocabulary as an object array (scikit-learn convention)."""
        if not hasattr(self, "vocabulary_"):
            raise ValueError("TermIndexer is not fitted yet; call fit(texts) first")
        return np.array(self.vocabulary_, dtype=object)

    # caches and the stemmer are rebuilt on demand: keep pickles (model files) small
    def __getstate__(self):
        state = self.__dict__.copy()
        for k in ("_stop", "_stem", "_token", "_norm_cache", "_col_cache", "_cache_cfg"):
            state.pop(k, None)
        return state


@dataclass(frozen=True)
class IndexedCorpus:
    """A corpus indexed for one set of categories: matrices, labels and the documents behind
    each row.  ``Y_*[i, j]`` is True iff row ``i`` has label ``categories[j]``."""

    config: IndexingConfig
    indexer: TermIndexer
    vocabulary: tuple
    categories: tuple
    train_docs: tuple
    test_docs: tuple
    X_train: sp.csr_matrix
    X_test: sp.csr_matrix
    Y_train: np.ndarray
    Y_test: np.ndarray

    @property
    def n_terms(self) -> int:
        return len(self.vocabulary)

    def for_categories(self, corpus, categories: Sequence[str]) -> IndexedCorpus:
        """The same index with ``categories`` as its label columns, documents taken from
        ``corpus`` by id (the index's terms do not depend on the categories: one index serves
        every choice of classes).  ``corpus`` must hold every indexed document."""
        by_id = {d.id: d for d in corpus.documents}
        try:
            train = tuple(by_id[d.id] for d in self.train_docs)
            test = tuple(by_id[d.id] for d in self.test_docs)
        except KeyError as exc:
            raise ValueError(f"corpus {corpus.name!r} lacks indexed document {exc.args[0]!r}") from None
        categories = tuple(categories)
        return replace(self, categories=categories, train_docs=train, test_docs=test,
                       Y_train=corpus.label_matrix(train, categories), Y_test=corpus.label_matrix(test, categories))

    def empty_documents(self) -> dict[str, int]:
        """How many training and test documents the indexing leaves without a single term of the
        vocabulary (every token a stop word, too rare, or no token at all): ``{"train": n, "test": n}``.
        Such a document is scored on the class prior alone."""
        return {"train": empty_row_count(self.X_train), "test": empty_row_count(self.X_test)}


def empty_row_count(X) -> int:
    """Rows of the sparse matrix ``X`` without a stored nonzero entry.

    >>> empty_row_count(sp.csr_matrix([[1.0, 0.0], [0.0, 0.0], [0.0, 2.0]]))
    1
    """
    return int((np.asarray((sp.csr_matrix(X) != 0).sum(axis=1)).ravel() == 0).sum())


def index_corpus(corpus, config: IndexingConfig | None = None, documents=None, *,
                 categories: Sequence[str] | None = None) -> IndexedCorpus:
    """Fit a :class:`TermIndexer` on the training documents and index both splits.

    Parameters
    ----------
    corpus : hbnlab.corpus.Corpus
    config : IndexingConfig, optional
        Defaults to the thesis's indexing.
    documents : iterable of Document, optional
        Restrict to these documents (e.g. a subset chosen in the workbench); default all.
        Their ``split`` decides train or test; the order is kept.
    categories : sequence of str, optional
        Columns of ``Y_train`` / ``Y_test``; default every category with at least one training
        and one test document among ``documents`` (Yang and Liu's convention, thesis sec. 4.1.1),
        by decreasing training frequency.

    Returns
    -------
    IndexedCorpus
    """
    cfg = config if config is not None else IndexingConfig()
    docs = list(corpus.documents if documents is None else documents)
    train = tuple(d for d in docs if d.split == "train")
    test = tuple(d for d in docs if d.split == "test")
    if not train:
        raise ValueError(f"corpus {corpus.name!r}: no training documents to build a vocabulary from")
    if categories is None:
        sub = corpus if documents is None else corpus.subset(docs)
        categories = sub.categories(min_train=1, min_test=1)
    categories = tuple(categories)
    indexer = TermIndexer(cfg)
    X_train = indexer.fit_transform(corpus.texts(train))
    X_test = indexer.transform(corpus.texts(test))
    return IndexedCorpus(cfg, indexer, tuple(indexer.vocabulary_), categories, train, test, X_train, X_test,
                         corpus.label_matrix(train, categories), corpus.label_matrix(test, categories))
