"""Tables in Turkish (cp1254), Polish and Hungarian (cp1250), and English tables with Russian rows
(cp1251) are read in their code page, not as cp1252 (issue 37, item 8: ``sevkiyatlarýnýn``,
``Ýêñïîðò``), and the encoding report says the code page was a judgement call; Western European
text stays cp1252 without a note."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hbnlab.corpus import load_upload
from hbnlab.corpus.encoding import decode_text, encoding_summary
from hbnlab.corpus.mojibake import mojibake_words

TURKISH = ["İhracat şirketinin sevkiyatlarının çoğu gümrükte bekliyor",
           "Buğday fiyatları geçen hafta yükseldi ve çiftçiler memnun",
           "Petrol üretimi düştü, ihracatçılar yeni pazarlar arıyor",
           "Şeker ithalatı için kotalar ağustosta değişecek"]
POLISH = ["Ceny pszenicy w porcie Gdynia wzrosły o trzy procent w tym tygodniu",
          "Rolnicy z regionu protestowali przeciwko nowym podatkom rolnym",
          "Produkcja ropy naftowej spadła, a ceny paliwa rosną od miesiąca",
          "Eksperci mówią, że import cukru zmieni kwoty w sierpniu"]
HUNGARIAN = ["A búza exportja a múlt héten jelentősen nőtt, az árak magasabbak",
             "A kormány bejelentette, hogy a gazdák adói csökkennek",
             "Az olajtermelés visszaesett, az üzemanyagárak hetek óta nőnek",
             "Őszi vetés előtt a műtrágya ára emelkedő tendenciát mutat"]
RUSSIAN = ["Экспорт пшеницы вырос на прошлой неделе", "Правительство снизило налоги для фермеров"]
ENGLISH = ["Wheat exports rose last week as prices climbed", "The government cut taxes for farmers this year",
           "Oil output fell and fuel prices kept rising", "Sugar import quotas will change in August"]
WESTERN = {
    "french": ["Le cœur de l'été: où est la forêt? Ça dépend de la saison", "Les élèves mangèrent à côté du château",
               "Noël approche, la naïve Zoé est sûre que l'œuvre est déjà finie", "Prix du blé: 25 € le quintal, n°5"],
    "german": ["Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich", "Äpfel und Öl für die Straße",
               "Die Grüße der Fußgänger sind süß", "Übermut tut selten gut, sagt das Mädchen"],
    "spanish": ["¿Qué pasó con el pingüino? ¡Increíble!", "Wenceslao hizo kilómetros bajo exhaustiva lluvia y frío",
                "Añoraba a su querido cachorro, decía Ángel", "La acción subió un 3º día seguido en la Peña"],
    "portuguese": ["As informações e ações da empresa subiram", "O irmão põe limões na mesa",
                   "Não há lições públicas em São Paulo", "O coração do avô é de ouro, através do órgão"],
    "icelandic": ["Þórður fór í bæinn og það var gott", "Eyjafjallajökull sýndu mér ýmislegt",
                  "Hálló, Ísland, sagði hún í Reykjavík", "Við förum heim á morgun með ferjunni"],
    "estonian": ["Põdral maja taga on sõna või jõgi", "Tõnis elab Pärnus ja Võrus",
                 "Öö ülikoolis oli kõik hästi", "Õun kukkus puu otsast maha"],
}


def _table(rows: list[str], n: int = 40) -> str:
    return "text,labels\n" + "".join(f'"{rows[i % len(rows)]} {i}",c{i % 2}\n' for i in range(n))


def _mixed(foreign: list[str], share: int = 5) -> str:
    """English rows with one row in ``share`` from ``foreign``."""
    return "text,labels\n" + "".join(f'"{(foreign if i % share == 0 else ENGLISH)[i % 2]} {i}",c{i % 2}\n'
                                     for i in range(50))


@pytest.mark.parametrize("name, text, codec", [
    ("turkish.csv", _table(TURKISH), "cp1254"),
    ("polish.csv", _table(POLISH), "cp1250"),
    ("hungarian.csv", _table(HUNGARIAN), "cp1250"),
    ("english_russian.csv", _mixed(RUSSIAN), "cp1251"),
])
def test_a_table_in_another_windows_code_page_is_read_in_it(name, text, codec):
    data = text.encode(codec)
    data.decode("cp1252")                              # cp1252 reads every byte: only the words tell
    decoded = decode_text(data, name)
    assert (decoded.encoding, decoded.text) == (codec, text)
    assert decoded.note.startswith(f"read as {codec}, not cp1252: as cp1252 it held ")
    corpus = load_upload(data, name)
    assert corpus.documents[0].text == text.splitlines()[1].split('"')[1]
    assert corpus.meta["encodings"] == {codec: 1}
    assert corpus.meta["code_page_notes"] == [{"file": name, "encoding": codec, "note": decoded.note}]
    lines = encoding_summary(corpus.meta)
    assert "1 file whose code page is a judgement call:" in lines
    assert f"  {name}: {decoded.note}" in lines


@pytest.mark.parametrize("language", sorted(WESTERN))
def test_western_european_text_stays_cp1252_without_a_note(language):
    text = _table(WESTERN[language])
    assert mojibake_words(text) == []
    decoded = decode_text(text.encode("cp1252"), f"{language}.csv")
    assert (decoded.encoding, decoded.text, decoded.note) == ("cp1252", text, "")
    assert "code_page_notes" not in load_upload(text.encode("cp1252"), f"{language}.csv").meta


def test_a_single_odd_word_is_not_doubted():
    text = _table(ENGLISH).replace("August", "Ìîñêâà", 1)          # one Russian word read in cp1252
    decoded = decode_text(text.encode("cp1252"), "t.csv")
    assert (decoded.encoding, decoded.note) == ("cp1252", "")


def test_a_file_no_code_page_reads_says_the_guess_is_uncertain():
    """Turkish rows in cp1254 and Russian and English rows in cp1251 in one file: no single code
    page reads both, so the cp1252 reading stays, with a note saying it is uncertain."""
    rows = [(f'"{TURKISH[i % 4]} {i}",c1\n', "cp1254") if i % 2 else
            (f'"{(RUSSIAN + ENGLISH * 2)[i % 4]} {i}",c0\n', "cp1251") for i in range(40)]
    data = b"text,labels\n" + b"".join(row.encode(codec) for row, codec in rows)
    decoded = decode_text(data, "mixed.csv")
    assert decoded.encoding == "cp1252"
    assert decoded.note.startswith("read as cp1252, uncertain: ") and "look like another code page" in decoded.note


_PIECES = [w.encode(c, "ignore") for w in ("sevkiyatlarının", "było", "nőtt", "Экспорт", "café", "Þórður", "ações",
                                            "wheat", "½", "×", "3º", "Œuvre", "ˆa", "õun")
           for c in ("cp1252", "cp1254", "cp1250", "cp1251")] + [b" ", b", ", b"\n", b"\xb3", b"\xfd"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=80))
def test_the_quick_triggers_never_hide_a_doubt(pieces):
    """Oracle: the character-class searches that spare the word scan of a cp1252 reading give the
    same answer as the word scan itself."""
    from hbnlab.corpus import mojibake as M

    text = b"".join(pieces).decode("latin-1")
    suspects, n = M._scan(text)
    expected = suspects if len(suspects) >= M.MIN_SUSPECTS and len(suspects) >= M.MIN_SUSPECT_SHARE * n else []
    assert M.doubted_words(text) == expected
