"""What account names are compared by: one key for names people cannot tell apart.

:func:`name_key` is a confusable *skeleton* in the manner of Unicode's UTS #39 ("Unicode
Security Mechanisms", section 4): compatibility characters made plain (NFKC: the fullwidth
``Ａ`` is ``A``), each letter that looks like a Latin one replaced by that Latin letter
(:data:`LOOKALIKES`), runs of spaces made one, case folded.  Two names with one key are one
name: the second cannot be a guest's or an account's while the first is an account's, and a
login finds the account by any of its look-alike spellings.

:data:`LOOKALIKES` is a small part of Unicode's ``confusables.txt`` (the data of UTS #39,
https://www.unicode.org/Public/security/latest/confusables.txt): the Cyrillic and Greek
letters whose prototype there is a single Latin letter.  Uppercase and lowercase are mapped
before the case is folded, since a letter may look like a Latin one in one case only
(Cyrillic ``М`` is ``M``, ``м`` is not ``m``).  Other scripts' look-alikes, and Latin ones
such as ``0`` and ``O``, are not mapped: a name is not refused for them.

>>> name_key("  Ivan   Horvat ") == name_key("IVAN HORVAT"), name_key(" Ａｎａ ")
(True, 'ana')
>>> name_key("Мirnаd121") == name_key("Mirnad121"), name_key("Κορа")  # Greek, Cyrillic
(True, 'kopa')
"""

from __future__ import annotations

import unicodedata

# confusables.txt's single Latin prototypes of Cyrillic and Greek letters (character: Latin)
LOOKALIKES = str.maketrans({
    # Cyrillic capitals: А В Е К М Н О Р С Т Х Ѕ І Ј Ү Ԛ Ԝ
    "\u0410": "A", "\u0412": "B", "\u0415": "E", "\u041a": "K", "\u041c": "M", "\u041d": "H",
    "\u041e": "O", "\u0420": "P", "\u0421": "C", "\u0422": "T", "\u0425": "X", "\u0405": "S",
    "\u0406": "I", "\u0408": "J", "\u04ae": "Y", "\u051a": "Q", "\u051c": "W",
    # Cyrillic small: а е о р с у х ѕ і ј һ ԁ ԛ ԝ ӏ ү
    "\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0440": "p", "\u0441": "c", "\u0443": "y",
    "\u0445": "x", "\u0455": "s", "\u0456": "i", "\u0458": "j", "\u04bb": "h", "\u0501": "d",
    "\u051b": "q", "\u051d": "w", "\u04cf": "l", "\u04af": "y",
    # Greek capitals: Α Β Ε Ζ Η Ι Κ Μ Ν Ο Ρ Τ Υ Χ
    "\u0391": "A", "\u0392": "B", "\u0395": "E", "\u0396": "Z", "\u0397": "H", "\u0399": "I",
    "\u039a": "K", "\u039c": "M", "\u039d": "N", "\u039f": "O", "\u03a1": "P", "\u03a4": "T",
    "\u03a5": "Y", "\u03a7": "X",
    # Greek small: α γ ι ν ο ρ υ
    "\u03b1": "a", "\u03b3": "y", "\u03b9": "i", "\u03bd": "v", "\u03bf": "o", "\u03c1": "p",
    "\u03c5": "u",
})


def name_key(name: str) -> str:
    """The key names are compared by (the module's docstring)."""
    plain = unicodedata.normalize("NFKC", name).translate(LOOKALIKES)
    return " ".join(plain.split()).casefold()
