"""Names typed by people: one cleaning before storing, one key for matching. Pure, no Django.

Every name a person types or a file holds (a player's full name and nickname, a tournament's
name, a castigo's reason, the names of every import format, the names typed in the directors'
forms) goes through ``clean`` before it is stored or looked up, and players are compared by
``key``:

- ``clean``: what is kept. Invisible characters are dropped (Unicode category Cf — zero-width
  space, joiner and non-joiner, word joiner, BOM, soft hyphen, bidirectional marks, embeddings
  and isolates —, the other default-ignorable code points — variation selectors, the combining
  grapheme joiner, Hangul fillers —, control characters (Cc) that are not whitespace, and lone
  surrogates); every run of whitespace (tab, newline, NBSP, narrow NBSP, ideographic space, line
  separator ...) becomes one ASCII space; Unicode NFC; trimmed. ``clean(clean(x)) == clean(x)``.
- ``key``: what is compared. ``clean``, then compatibility decomposition (NFKD: full-width
  letters, ligatures), case folding, combining marks dropped (accents: "José" ~ "JOSE"), the
  dotless ı read as i, every space dropped ("Mari Sol" ~ "Marisol"). Names with equal keys are
  the same name typed differently; the key is never shown.
"""

from __future__ import annotations

import unicodedata

__all__ = ["clean", "invisible", "key"]

#: Default_Ignorable_Code_Point ranges (Unicode DerivedCoreProperties.txt), besides category
#: Cf: the ones of other categories (variation selectors, CGJ, Hangul fillers, Khmer inherent
#: vowels, Mongolian free variation selectors, shorthand format controls, musical format
#: controls, tags and the reserved rest of plane 14).
_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)

#: Letters the key reads as another (beyond case folding and dropped marks).
_KEY_LETTERS = str.maketrans({"ı": "i"})


def invisible(ch: str) -> bool:
    """True for one character ``clean`` drops: category Cf or Cs, a control character (Cc)
    that is not whitespace, or any other default-ignorable code point (``_IGNORABLE``)."""
    if ch.isspace():
        return False
    if unicodedata.category(ch) in ("Cc", "Cf", "Cs"):
        return True
    code = ord(ch)
    return any(low <= code <= high for low, high in _IGNORABLE)


def _one_pass(text: str) -> str:
    kept = "".join(" " if ch.isspace() else ch for ch in text if not invisible(ch))
    return " ".join(unicodedata.normalize("NFC", kept).split())


def clean(value: str | None) -> str:
    """``value`` as it is stored: invisible characters dropped, whitespace runs one ASCII
    space, NFC, trimmed (see the module's docstring). ``None`` or "" → "". A name made only of
    invisible characters and spaces comes out empty (the services then refuse it as
    "name_required"). Idempotent."""
    value = value or ""
    if value.isascii() and value.isprintable():  # the common case: only spaces to collapse
        return " ".join(value.split())
    text = _one_pass(value)
    # NFC of a cleaned text is stable in practice; loop in case a Unicode oddity is not.
    for _ in range(3):
        again = _one_pass(text)
        if again == text:
            break
        text = again
    return text


def key(value: str | None) -> str:
    """The comparison key of a name: ``clean``, NFKD, case-folded, combining marks (Mn, Me)
    dropped, ı → i, spaces and punctuation (Unicode P*: apostrophes straight or curly,
    hyphens, quotes, dots) dropped, NFC. "José Pérez", "JOSE  PEREZ", "Jose\\u200b Perez"
    and "jose perez" share "joseperez"; "Saúl D’Alessandro" and "saul dalessandro",
    "Zoë Ní Bhriain-Núñez" and "zoe ni bhriain nunez" match. Empty for an empty name (match
    nothing on an empty key)."""
    text = unicodedata.normalize("NFKD", clean(value)).casefold()
    text = unicodedata.normalize("NFKD", text).translate(_KEY_LETTERS)
    text = "".join(
        ch
        for ch in text
        if unicodedata.category(ch) not in ("Mn", "Me")
        and not unicodedata.category(ch).startswith("P")
        and not ch.isspace()
        and not invisible(ch)
    )
    return unicodedata.normalize("NFC", text)
