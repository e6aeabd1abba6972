"""Corpora: the :class:`Corpus` type, readers, the Reuters-21578 fetcher and a synthetic generator.

Every reader returns a :class:`Corpus` or raises :class:`CorpusError` naming the file and the
line or field.

* Reuters-21578 (thesis sec. 4.1.1): :func:`fetch_reuters21578`, :func:`load_reuters21578`,
  :func:`modapte_counts`, :func:`train0_validation_split`;
* user data: :func:`read_table` (CSV / TSV / JSONL / Parquet), :func:`read_folder_per_class`,
  :func:`read_zip`, :func:`load_corpus` (dispatch on a path or a name), :func:`load_upload`
  (bytes + file name, for the workbench);
* 20 Newsgroups and OHSUMED in their distributed layouts (de Campos et al.'s other
  collections): :func:`read_20newsgroups`, :func:`read_ohsumed` (``ohsumed-first-20000-docs`` or
  the original ``ohsumed.NN`` files), :func:`detect_collection_layout`;
* text decoding (:mod:`hbnlab.corpus.encoding`): ``encoding="auto"``, the default of every
  reader, detects each file's encoding; ``Corpus.meta['encodings']`` and
  ``meta['replaced_files']`` report what was used (with where each replaced file went wrong), and a
  binary file (an image, an archive, an executable) is skipped and listed in ``meta['ignored_files']``
  (a binary table file is refused: :class:`BinaryFileError`);
* :func:`make_synthetic_corpus`: documents from a known hierarchical model with planted word
  groups (the default corpus of the workbench); :func:`make_hierarchical_corpus`: categories in a
  two-level topic taxonomy;
* :mod:`hbnlab.corpus.taxonomy`: taxonomies from dotted names or a ``parent<TAB>child`` file.
"""
from ._common import DEFAULT_MAX_BYTES
from .base import BinaryFileError, Corpus, CorpusError, Document, MissingColumnError
from .collections import (
    OHSUMED_CATEGORIES,
    detect_collection_layout,
    read_20newsgroups,
    read_mesh_trees,
    read_ohsumed,
    read_ohsumed_medline,
)
from .fetch import DEFAULT_URL, default_data_home, fetch_reuters21578
from .readers import load_corpus, load_upload, read_folder_per_class, read_table, read_zip
from .reuters import REUTERS_NAME, load_reuters21578, modapte_counts, train0_validation_split
from .synthetic import make_synthetic_corpus
from .synthetic_hierarchy import make_hierarchical_corpus
from .taxonomy import ROOT, Taxonomy, TaxonomyError, TopicLabels, read_taxonomy

__all__ = [
    "OHSUMED_CATEGORIES",
    "REUTERS_NAME",
    "Corpus",
    "CorpusError",
    "MissingColumnError",
    "BinaryFileError",
    "Document",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_URL",
    "default_data_home",
    "detect_collection_layout",
    "fetch_reuters21578",
    "load_corpus",
    "load_upload",
    "load_reuters21578",
    "make_synthetic_corpus",
    "make_hierarchical_corpus",
    "ROOT",
    "Taxonomy",
    "TaxonomyError",
    "TopicLabels",
    "read_taxonomy",
    "modapte_counts",
    "read_20newsgroups",
    "read_folder_per_class",
    "read_mesh_trees",
    "read_ohsumed",
    "read_ohsumed_medline",
    "read_table",
    "read_zip",
    "train0_validation_split",
]
