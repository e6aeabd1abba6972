"""The CSV reader walks the decoded text line by line (``text_lines``) instead of through an
``io.StringIO`` copy (four bytes a character): the same lines, so the same rows and the same line
numbers in errors, and a read whose peak memory is a few times the file, not seven and a half."""
from __future__ import annotations

import io
import random

from hbnlab.corpus._common import text_lines
from hbnlab.corpus.readers import read_table


def test_the_lines_are_those_of_a_stringio_without_newline_translation():
    rng = random.Random(0)
    alphabet = ["a", "b", ",", '"', "\r", "\n", "\r\n", "\u2028", "\x0b", "\x0c", "\x1c", "\x85", "é", " "]
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert list(text_lines(text)) == list(io.StringIO(text, newline="")), repr(text)


def test_a_csv_read_holds_no_wide_copy_of_the_text(tmp_path):
    import tracemalloc

    rows = [f"{k},\"word{k % 97} text {'lorem ipsum ' * 80}\nsecond line\",{'ab'[k % 2]}" for k in range(5_000)]
    path = tmp_path / "t.csv"
    path.write_text("id,text,labels\n" + "\n".join(rows) + "\n", encoding="utf-8")
    size = path.stat().st_size
    tracemalloc.start()
    try:
        corpus = read_table(path, id_column="id")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(corpus) == 5_000 and corpus.documents[5].text.endswith("\nsecond line")
    # the file's bytes, its text, the rows and the documents; a StringIO copy alone was four times the
    # file, and the read of the bytes allocated max_bytes (200 MB) up front
    assert peak < 5 * size, peak / size  # 4.1x here; with a StringIO copy of the text 7-8x


def test_reading_a_file_allocates_its_size_not_the_limit(tmp_path):
    import tracemalloc

    from hbnlab.corpus._common import read_regular_file

    path = tmp_path / "f.txt"
    path.write_bytes(b"x" * 1_000_000)
    tracemalloc.start()
    try:
        data = read_regular_file(path, 200_000_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert data == b"x" * 1_000_000 and peak < 1_100_000, peak
