"""Newsgroup-style text: remove the header block, quoted replies and the signature of a message.

A Usenet or mail message carries text that names its poster rather than its topic: the header
block (``From:``, ``Organization:``, ``Path:`` ...), the lines it quotes from earlier messages
with their attribution (``In article <...> gordon@cs.pitt.edu writes:``) and the signature under
``-- ``.  A classifier learns those names as class evidence (a group's most active poster's host
name becomes a "term" of the group).  :func:`strip_newsgroup` removes them, after scikit-learn's
``fetch_20newsgroups(remove=('headers', 'footers', 'quotes'))`` (Pedregosa et al. 2011), with
three differences that keep ordinary text intact:

* headers: the block up to the first blank line is removed only when its first line is a
  header field (``Name: value``, RFC 5322, Resnick 2008) or an mbox ``From`` line; a message
  without a blank line has no header block and is kept (scikit-learn empties it);
* quotes: lines starting (after white space) with ``>`` or ``|``, lines starting ``In article``
  and lines ending ``writes:`` / ``wrote:`` when a line that is not blank follows them -- an
  attribution introduces something; a message's last line ending in ``wrote:`` is text
  (scikit-learn drops it, and also any line that merely *contains* ``said:`` or ``says:``);
* signature: the part from a delimiter line -- ``--``, ``-- `` followed by text (RFC 3676
  sec. 4.3, Gellens 2004), or a rule of dashes -- to the end, only when that part is short
  (:data:`SIGNATURE_MAX_LINES` non-blank lines, :data:`SIGNATURE_MAX_CHARS` characters) and text
  precedes it; the earliest such delimiter wins, so a signature framed by rules goes whole.
  scikit-learn cuts at the last blank or dashed line whatever follows it.

Lines end in ``\\n``, ``\\r\\n`` or a lone ``\\r`` (old Macintosh posts), mixed as they come; the
kept lines keep their own ends, and a part that finds nothing leaves the text exactly as it was.
Each part takes time linear in the message.
:func:`strip_corpus` applies it to the texts of a corpus and records what it did in the corpus's
``meta["newsgroup_strip"]``; :func:`strip_summary` says so in one line.
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

__all__ = ["NEWSGROUP_PARTS", "SIGNATURE_MAX_LINES", "SIGNATURE_MAX_CHARS", "newsgroup_parts", "strip_newsgroup",
           "strip_headers", "strip_quotes", "strip_signature", "strip_corpus", "strip_summary"]

#: What :func:`strip_newsgroup` can remove, in the order it removes them.
NEWSGROUP_PARTS = ("headers", "quotes", "signature")
#: Other names of the parts (scikit-learn calls the signature "footers").
_ALIASES = {"header": "headers", "quote": "quotes", "footer": "signature", "footers": "signature",
            "signatures": "signature", "sig": "signature"}
#: A signature longer than this many non-blank lines is text, not a signature.
SIGNATURE_MAX_LINES = 10
#: ... or longer than this many characters.
SIGNATURE_MAX_CHARS = 800

_HEADER_FIELD = re.compile(r"^(?:[A-Za-z][A-Za-z0-9_-]*:(?:\s|$)|From\s)")
_QUOTED = re.compile(r"^\s*[>|]")
_ATTRIBUTION = re.compile(r"^\s*In article\b|\b(?:writes|wrote)\s*:\s*$")
_DELIMITER = re.compile(r"^(?:-{2,}|-- .*)$")


def newsgroup_parts(parts) -> tuple:
    """The parts named by ``parts`` (an iterable of names, or one comma-separated string), in the
    order of :data:`NEWSGROUP_PARTS`; ``"all"`` names every part, ``"footers"`` is the signature.
    An unknown name is a ValueError naming it.

    >>> newsgroup_parts("signature,headers")
    ('headers', 'signature')
    >>> newsgroup_parts(["all"]), newsgroup_parts(None), newsgroup_parts(["footers"])
    (('headers', 'quotes', 'signature'), (), ('signature',))
    >>> newsgroup_parts("headers,adverts")
    Traceback (most recent call last):
    ...
    ValueError: newsgroup part 'adverts' is unknown; expected headers, quotes, signature or all
    """
    if parts is None:
        return ()
    names = parts.split(",") if isinstance(parts, str) else list(parts)
    chosen = set()
    for raw in names:
        if not isinstance(raw, str):
            raise ValueError(f"newsgroup part {raw!r} is not a name; expected {', '.join(NEWSGROUP_PARTS)} or all")
        name = raw.strip().lower()
        if not name:
            continue
        if name == "all":
            chosen.update(NEWSGROUP_PARTS)
            continue
        name = _ALIASES.get(name, name)
        if name not in NEWSGROUP_PARTS:
            raise ValueError(f"newsgroup part {raw.strip()!r} is unknown; expected {', '.join(NEWSGROUP_PARTS)} or all")
        chosen.add(name)
    return tuple(p for p in NEWSGROUP_PARTS if p in chosen)


_EOL = re.compile(r"(\r\n|\r|\n)")


class _Lines:
    """The lines of ``text`` without their ends (``\r\n``, ``\r`` or ``\n``: CR-only files are
    common among old Macintosh posts), with where each starts, so that a part can be cut out of
    the text as it was, every line end kept."""

    def __init__(self, text: str):
        parts = _EOL.split(text)
        self.lines = parts[0::2]
        self.ends = parts[1::2] + [""]
        self.starts = []
        at = 0
        for line, end in zip(self.lines, self.ends):
            self.starts.append(at)
            at += len(line) + len(end)

    def join(self, keep: list[int]) -> str:
        """The lines ``keep`` (increasing indices), each followed by its own line end but the last."""
        return "".join(self.lines[k] + (self.ends[k] if n < len(keep) - 1 else "") for n, k in enumerate(keep))


def strip_headers(text: str) -> str:
    """``text`` without its header block: the lines up to the first blank line, when the first
    line is a header field; otherwise ``text`` unchanged.

    >>> strip_headers("From: geb@cs.pitt.edu (Gordon Banks)\\nSubject: Re: migraine\\n\\nTry aspirin.")
    'Try aspirin.'
    >>> strip_headers("No header here.\\n\\nSecond paragraph.")
    'No header here.\\n\\nSecond paragraph.'
    >>> strip_headers("From: amy@x.edu\\rSubject: CR-only line ends\\r\\rBody.")
    'Body.'
    """
    if not _HEADER_FIELD.match(text):
        return text
    lines = _Lines(text)
    for i, line in enumerate(lines.lines):
        if not line.strip():
            return text[lines.starts[i] + len(line) + len(lines.ends[i]):]
    return text


def strip_quotes(text: str) -> str:
    """``text`` without quoted lines (``>``, ``|``) and attribution lines (``In article ...``,
    ``... writes:``, ``... wrote:``).  An attribution introduces what follows it: one followed
    by nothing but blank lines (the last line of a message ending in ``wrote:``) is text, and
    stays.

    >>> strip_quotes("In article <1@pitt.edu> geb@pitt.edu writes:\\n> > old\\n>new\\nMy answer.")
    'My answer.'
    >>> strip_quotes("The rule is what the chair wrote:")
    'The rule is what the chair wrote:'
    """
    lines = _Lines(text)
    dropped = [False] * len(lines.lines)
    introduces = False  # a line that is not blank comes later (or an attribution that goes)
    for i in range(len(lines.lines) - 1, -1, -1):
        line = lines.lines[i]
        if _QUOTED.match(line):
            dropped[i] = True
        elif _ATTRIBUTION.search(line):
            dropped[i] = introduces
        if line.strip():
            introduces = True
    if not any(dropped):
        return text
    return lines.join([i for i, d in enumerate(dropped) if not d])


def strip_signature(text: str) -> str:
    """``text`` without its signature: from the earliest delimiter line (``--``, ``-- text``, a
    rule of dashes) that has text before it and a short part after it (see the module
    docstring) to the end; otherwise ``text`` unchanged.

    The part after each line is measured once, from the end backwards (its non-blank lines and
    their characters, counted up to just over the limits), so the time is linear in the message:
    measuring the rest again at every ``--`` line took 29 s for 60 KB of them.

    >>> strip_signature("Try aspirin.\\n-- \\nGordon Banks  N3JXP\\ngeb@cadre.dsl.pitt.edu")
    'Try aspirin.'
    >>> strip_signature("Results:\\n--\\n" + "a long line of the body\\n" * 12).count("body")
    12
    """
    lines = _Lines(text)
    n = len(lines.lines)
    # short_after[i]: the lines after line i hold at most SIGNATURE_MAX_LINES non-blank lines of
    # at most SIGNATURE_MAX_CHARS characters (stripped); the counts stop growing past the limits
    short_after = [False] * n
    n_lines = n_chars = 0
    for i in range(n - 1, -1, -1):
        short_after[i] = n_lines <= SIGNATURE_MAX_LINES and n_chars <= SIGNATURE_MAX_CHARS
        if not short_after[i]:
            break  # every earlier line has at least this much after it
        body = lines.lines[i].strip()
        if body:
            n_lines += 1
            n_chars += len(body)
    seen_text = False
    for i, line in enumerate(lines.lines):
        delimiter = bool(_DELIMITER.match(line.rstrip()))
        if delimiter and seen_text and short_after[i]:
            return text[:lines.starts[i]].rstrip()
        seen_text = seen_text or (bool(line.strip()) and not delimiter)
    return text


_STRIPPERS = {"headers": strip_headers, "quotes": strip_quotes, "signature": strip_signature}


def strip_newsgroup(text: str, parts: Iterable[str] | str = NEWSGROUP_PARTS) -> str:
    """``text`` without the newsgroup ``parts`` (:data:`NEWSGROUP_PARTS`: ``"headers"``,
    ``"quotes"``, ``"signature"``; default all three), removed in scikit-learn's order: headers,
    signature, quotes (so quoted lines count towards the length of what follows a ``--`` in the
    body).

    >>> message = '''From: geb@cs.pitt.edu (Gordon Banks)
    ... Subject: Re: Migraine and aspirin
    ... Organization: Univ. of Pittsburgh Computer Science
    ...
    ... In article <1993Apr5.1@x.edu> jdoe@x.edu (John Doe) writes:
    ... >Does aspirin help a migraine?
    ...
    ... It helps some patients.
    ... --
    ... Gordon Banks  N3JXP      | "Skepticism is the chastity of the intellect"
    ... geb@cadre.dsl.pitt.edu'''
    >>> strip_newsgroup(message)
    '\\nIt helps some patients.'
    >>> strip_newsgroup(message, ["signature"]).splitlines()[-1]
    'It helps some patients.'
    >>> strip_newsgroup("plain text, nothing to remove\\r\\n", "all")
    'plain text, nothing to remove\\r\\n'
    """
    chosen = newsgroup_parts(parts)
    for part in ("headers", "signature", "quotes"):
        if part in chosen:
            text = _STRIPPERS[part](text)
    return text


def strip_corpus(corpus, parts: Iterable[str] | str = NEWSGROUP_PARTS):
    """A copy of ``corpus`` (a :class:`hbnlab.corpus.Corpus`) whose document texts went through
    :func:`strip_newsgroup` (titles are kept), with ``meta["newsgroup_strip"]``: the ``parts``,
    how many documents ``changed`` and how many were left ``empty``.  No parts: ``corpus`` itself.

    The parts recorded in the meta are part of the corpus fingerprint
    (:meth:`hbnlab.corpus.Corpus.fingerprint`)."""
    chosen = newsgroup_parts(parts)
    if not chosen:
        return corpus
    docs, changed, empty = [], 0, 0
    for d in corpus.documents:
        text = strip_newsgroup(d.text, chosen)
        if text != d.text:
            changed += 1
            empty += not text.strip()
            d = dataclasses.replace(d, text=text)
        docs.append(d)
    meta = {**corpus.meta, "newsgroup_strip": {"parts": list(chosen), "changed": changed, "empty": empty}}
    return dataclasses.replace(corpus, documents=tuple(docs), meta=meta)


def strip_summary(meta: dict, n_documents: int) -> str | None:
    """One line saying what :func:`strip_corpus` did (``None`` when it was not applied).

    >>> strip_summary({"newsgroup_strip": {"parts": ["headers", "quotes"], "changed": 3, "empty": 0}}, 40)
    'newsgroup stripping applied (headers, quotes): 3 of 40 documents changed'
    >>> strip_summary({}, 40) is None
    True
    """
    info = meta.get("newsgroup_strip")
    if not info:
        return None
    line = (f"newsgroup stripping applied ({', '.join(info['parts'])}): {info['changed']} of {n_documents} "
            f"document{'s' if n_documents != 1 else ''} changed")
    if info.get("empty"):
        line += f", {info['empty']} left without text"
    return line
