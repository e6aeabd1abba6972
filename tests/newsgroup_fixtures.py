"""A small folder-per-class corpus of newsgroup messages (20 Newsgroups' ``bydate`` layout).

Two groups, ``sci.med`` and ``rec.autos``, three training and two test messages each.  The
messages whose number is in :data:`WITH_PARTS` carry a header block, a quoted reply with its
attribution and a signature naming the poster (``Gordon Banks`` at ``pitt.edu`` in sci.med,
``Joe Carter`` at ``cmu.edu`` in rec.autos); the others are bare bodies that stripping leaves as
they are.  Every poster word (``gordon``, ``pitt``, ``carter``, ``cmu``) occurs only in those parts.
"""
from __future__ import annotations

_BODIES = {
    "sci.med": ["Aspirin helps some migraine patients when taken early.",
                "The clinic reported fewer infections after the new vaccine.",
                "A doctor should check a persistent headache.",
                "Blood pressure drugs can cause dizziness in older patients.",
                "The study followed nine hundred patients for two years."],
    "rec.autos": ["The engine stalls when the weather is cold.",
                  "Replace the brake pads before the rotors wear out.",
                  "This sedan gets good mileage on the highway.",
                  "The dealer quoted a fair price for the transmission.",
                  "Check the tire pressure every month."],
}
_POSTERS = {"sci.med": ("geb@cadre.dsl.pitt.edu (Gordon Banks)", "Univ. of Pittsburgh Computer Science",
                        "Gordon Banks  N3JXP      | \"Skepticism is the chastity of the intellect\"\n"
                        "geb@cadre.dsl.pitt.edu   |  it is shameful to surrender it too soon."),
            "rec.autos": ("jc@andrew.cmu.edu (Joe Carter)", "Carnegie Mellon University",
                          "Joe Carter, Carnegie Mellon, jc@andrew.cmu.edu")}
#: A sentence every message of the group holds (its terms pass min_df=2).
_TOPIC = {"sci.med": "The patients asked the doctor about the medicine.",
          "rec.autos": "The mechanic looked at the car and its engine."}
#: Messages (file names) that carry headers, a quoted reply and a signature.
WITH_PARTS = frozenset({"101", "104", "201", "204"})


def message(group: str, body: str) -> str:
    """``body`` as a posting to ``group`` by its poster, quoting an earlier message."""
    sender, org, signature = _POSTERS[group]
    return (f"From: {sender}\nSubject: Re: a question\nOrganization: {org}\nLines: 12\n\n"
            f"In article <1993Apr5.1@{sender.split('@')[1].split()[0]}> someone@else.edu writes:\n"
            f">Has anyone seen this before?\n> > an older quote\n\n{body}\n-- \n{signature}\n")


def newsgroup_files() -> dict:
    """``{relative path: bytes}``: ``train/<group>/<n>`` (3 per group) and ``test/<group>/<n>`` (2)."""
    files = {}
    for g, group in enumerate(_BODIES):
        for i, body in enumerate(_BODIES[group]):
            name = str(100 * (g + 1) + i + 1)
            split = "train" if i < 3 else "test"
            body = f"{body} {_TOPIC[group]}"
            text = message(group, body) if name in WITH_PARTS else body + "\n"
            files[f"{split}/{group}/{name}"] = text.encode("utf-8")
    return files


def write_newsgroup_folders(root) -> dict:
    """Write :func:`newsgroup_files` under ``root``; returns them."""
    files = newsgroup_files()
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return files
