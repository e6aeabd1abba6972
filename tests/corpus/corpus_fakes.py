"""Builders of hand-made test inputs for the corpus tests (no Reuters text is copied)."""
from __future__ import annotations

from pathlib import Path

from hbnlab.corpus.reuters import REUTERS_FILES


def sgm_record(newid, topics=(), *, lewis="TRAIN", topics_attr="YES", date="26-FEB-1987 15:01:01.79",
               title="WIDGET OUTPUT RISES", body="Widget output rose sharply.", text_type=None,
               csecs=None) -> str:
    """One <REUTERS> record in the layout of Distribution 1.0 (invented text)."""
    attrs = f'TOPICS="{topics_attr}" LEWISSPLIT="{lewis}" CGISPLIT="TRAINING-SET"'
    if csecs is not None:
        attrs += f' CSECS="{csecs}"'
    attrs += f' OLDID="{int(newid) + 5000}" NEWID="{newid}"'
    ds = "".join(f"<D>{t}</D>" for t in topics)
    ttype = f' TYPE="{text_type}"' if text_type else ""
    if text_type == "UNPROC":
        text = f"<TEXT{ttype}>&#2;\n{body}\n&#3;</TEXT>"
    elif text_type == "BRIEF":
        text = f"<TEXT{ttype}>&#2;\n******<TITLE>{title}\n</TITLE>Blah blah blah.\n&#3;\n\n</TEXT>"
    else:
        text = (f"<TEXT{ttype}>&#2;\n<TITLE>{title}</TITLE>\n<DATELINE>    SOMEWHERE, Feb 26 - </DATELINE>"
                f"<BODY>{body}\n Reuter\n&#3;</BODY></TEXT>")
    return (f'<REUTERS {attrs}>\n<DATE>{date}</DATE>\n<TOPICS>{ds}</TOPICS>\n<PLACES><D>usa</D></PLACES>\n'
            f"<PEOPLE></PEOPLE>\n<ORGS></ORGS>\n<EXCHANGES></EXCHANGES>\n<COMPANIES></COMPANIES>\n"
            f"<UNKNOWN> \n&#5;&#5;&#5;F\n&#22;&#22;&#1;f0001&#31;reute\nu f BC-X   02-26 0001</UNKNOWN>\n"
            f"{text}\n</REUTERS>\n")


def write_fake_reuters(root: Path, records_by_file: dict[str, list[str]]) -> Path:
    """Write all 22 reut2-*.sgm files (latin-1); files without records hold only the DOCTYPE."""
    root.mkdir(parents=True, exist_ok=True)
    for name in REUTERS_FILES:
        body = '<!DOCTYPE lewis SYSTEM "lewis.dtd">\n' + "".join(records_by_file.get(name, []))
        (root / name).write_bytes(body.encode("latin-1"))
    return root


#: The fake collection: (newid, topics, LEWISSPLIT, TOPICS attr, extra keyword arguments).
FAKE_RECORDS = [
    ("1", ["grain", "wheat"], "TRAIN", "YES", {"date": "26-FEB-1987 15:01:01.79"}),
    ("2", ["crude"], "TRAIN", "YES", {"date": "26-FEB-1987 15:02:00.00",
                                      "body": "Oil &lt;XYZ&gt; &amp; Co said \xfcber&#5;&#30;prices"}),
    ("3", ["grain"], "TRAIN", "YES", {"date": "26-FEB-1987 15:01:30.00", "text_type": "BRIEF",
                                      "title": "GRAIN BRIEF"}),
    ("4", ["onlytrain"], "TRAIN", "YES", {}),                  # category without test docs: dropped
    ("5", [], "TRAIN", "YES", {}),                             # no topics: dropped
    ("6", ["grain"], "TRAIN", "NO", {}),                       # TOPICS="NO": dropped
    ("7", ["grain"], "TRAIN", "BYPASS", {}),                   # BYPASS: dropped
    ("8", ["grain"], "NOT-USED", "YES", {}),                   # NOT-USED: dropped
    ("9", ["crude", "onlytrain"], "TRAIN", "YES", {"csecs": "540385847", "date": "1-MAR-1987  13:04:18.47"}),
    ("10", ["grain"], "TEST", "YES", {"date": " 9-APR-1987 13:32:06.7"}),
    ("11", ["crude", "onlytest"], "TEST", "YES", {"date": "9-APR-1987 00:00:00.00    # a comment ",
                                                  "text_type": "UNPROC", "body": "FIGURES 1 2 3"}),
    ("12", ["onlytest"], "TEST", "YES", {}),                   # category without training docs: dropped
    ("13", ["wheat"], "TEST", "YES", {"date": "10-APR-1987 10:00:00.00&#5;&#5;&#5;RM"}),
]


def fake_reuters_records() -> dict[str, list[str]]:
    """FAKE_RECORDS laid out over reut2-000.sgm (first 7) and reut2-021.sgm (the rest)."""
    by_file: dict[str, list[str]] = {}
    for k, (newid, topics, lewis, tattr, kw) in enumerate(FAKE_RECORDS):
        name = REUTERS_FILES[0] if k < 7 else REUTERS_FILES[21]
        by_file.setdefault(name, []).append(sgm_record(newid, topics, lewis=lewis, topics_attr=tattr, **kw))
    return by_file
