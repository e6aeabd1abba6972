"""The Features page: the selected terms of a class with their scores and document counts."""
from __future__ import annotations

import numpy as np
import pandas as pd


def feature_table(data, label: str, n_features: int, scope: str = "local") -> pd.DataFrame:
    """The selected terms of ``label``: rank, term, score, training documents with the term in
    and outside the class."""
    j = data.category_index(label)
    cols = data.selected_columns(label, n_features, scope)
    X = data.indexed.X_train[:, cols]
    y = data.indexed.Y_train[:, j]
    present = (X > 0).astype(np.int64)
    in_class = np.asarray(present[y].sum(axis=0)).ravel()
    outside = np.asarray(present[~y].sum(axis=0)).ravel()
    n_pos = int(y.sum())
    return pd.DataFrame({
        "rank": np.arange(1, cols.size + 1),
        "term": [data.vocabulary[c] for c in cols],
        "score": data.scores[cols, j],
        "docs in class": in_class,
        "docs outside": outside,
        "P(term | class)": in_class / max(n_pos, 1),
        "P(term | not class)": outside / max(y.size - n_pos, 1),
    })


def score_format(scores) -> str:
    """A printf format that shows every score in full with about five significant digits: the
    largest score's integer digits plus enough decimals (chi-square scores run into thousands,
    information gain stays below 1)."""
    top = float(np.max(np.abs(scores))) if len(scores) else 0.0
    digits = int(np.floor(np.log10(top))) + 1 if top > 0 and np.isfinite(top) else 1
    return f"%.{min(6, max(1, 5 - digits))}f"


def selected_terms_overview(data, n_features: int, scope: str = "local") -> pd.DataFrame:
    """One column per category with its selected terms, best first (as many rows as the longest
    list: a vocabulary smaller than ``n_features`` gives fewer terms; shorter columns end in None)."""
    cols = {c: [data.vocabulary[t] for t in data.selected_columns(c, n_features, scope)] for c in data.categories}
    if not cols:
        return pd.DataFrame()
    n = max(len(v) for v in cols.values())
    cols = {c: v + [None] * (n - len(v)) for c, v in cols.items()}
    return pd.DataFrame(cols, index=pd.RangeIndex(1, n + 1, name="rank"))


def indexing_note(data) -> tuple[int, str]:
    """What the indexing left without a term, for the Corpus and Features pages: ``(n, sentence)``
    with ``n`` the training and test documents that hold no term of the vocabulary (every token a
    stop word, too rare, or none at all; they are scored on the class prior alone).  ``data``: a
    ProtocolData, or the corpus's term index (an IndexedCorpus)."""
    from hbnlab.text.stopwords import describe_stop_words

    ic = getattr(data, "indexed", data)
    empty = ic.empty_documents()
    n = empty["train"] + empty["test"]
    stop = describe_stop_words(ic.config.stopwords)
    head = f"Indexing with stop words '{stop}' keeps {ic.n_terms:,} terms"
    if not n:
        return 0, f"{head}; every document keeps at least one."
    return n, (f"{head}; {empty['train']:,} of {len(ic.train_docs) or ic.X_train.shape[0]:,} training and "
               f"{empty['test']:,} of {len(ic.test_docs) or ic.X_test.shape[0]:,} test documents are left without "
               f"a single term and are classified by the class's share alone. Another stop list (Features page) "
               f"may keep their words: every list removes who, what, where, when, why and how.")


#: The Features page's choice of a stop list the analyst uploads (beside the named lists).
OWN_LIST = "own list"


def stop_list_label(choice: str) -> str:
    """How the Features page shows a stop-list choice."""
    from hbnlab.text.stopwords import STOPLIST_DESCRIPTIONS

    if choice == OWN_LIST:
        return f"{OWN_LIST}: a file you upload, one word per line"
    return f"{choice}: {STOPLIST_DESCRIPTIONS[choice]}"


def stop_list_choice(stopwords: str) -> str:
    """The Features page's choice for a config's ``stopwords`` (an uploaded list is :data:`OWN_LIST`)."""
    from hbnlab.pipeline.stop_lists import is_own_stop_list

    return OWN_LIST if is_own_stop_list(stopwords) else stopwords


def stop_words_setting(choice: str, current: str, data: bytes | None = None, filename: str = "") -> str:
    """The config's ``stopwords`` for the Features page's choice: a named list as it is; for
    :data:`OWN_LIST` the uploaded file (``data``, stored in the data home, errors naming the file and
    line) or, without a new file, the uploaded list the config holds already."""
    from hbnlab.pipeline.stop_lists import is_own_stop_list, store_own_stop_list
    from hbnlab.text.stopwords import StopListError

    if choice != OWN_LIST:
        return choice
    if data is not None:
        return store_own_stop_list(data, filename)
    if is_own_stop_list(current):
        return current
    raise StopListError("Stop words 'own list': upload a text file of one word per line (UTF-8) first")
