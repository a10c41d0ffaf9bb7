"""Text from outside the plugin (an adapter's exception, a server's message, a judge's
reason, a data file's ids) made safe to print on a terminal.

An escape sequence in such text could clear the screen, move the cursor or recolour what
follows, and a carriage return could overwrite a line: together they forge output ("all
216 items PASSED"). `printable` drops escape sequences and control characters (and the
Unicode controls that reorder text); a newline survives only where the text is multi-line
by design (a wrong answer's full message), elsewhere it becomes a space. Every line the
plugin writes to the terminal goes through `write_line` (rendering/terminal.py), and every
one-line reason it hands to pytest through `printable`.
"""

from __future__ import annotations

import re

#: CSI (ESC [ or the one-byte CSI, parameters, a final byte), OSC (ESC ] up to BEL or ESC \),
#: the other control strings (DCS, SOS, PM, APC up to ESC \) and every other ESC sequence
_ESCAPE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[ -/]*[0-~]?"
)
#: C0 and C1 controls but tab and newline, DEL, and the bidirectional-text controls
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_LINE_BREAKS = re.compile("\r\n|[\n\r\x0b\x0c\x85\u2028\u2029]")


def printable(text: str, multiline: bool = False) -> str:
    """`text` without escape sequences and control characters; line breaks become spaces
    unless `multiline` (then each is one newline)."""
    text = _ESCAPE.sub("", str(text))
    text = _LINE_BREAKS.sub("\n" if multiline else " ", text).replace("\t", " ")
    return _CONTROL.sub("", text)


def shorten(text: str, width: int) -> str:
    """`text` cut to `width` characters, the last an ellipsis where it was cut."""
    return text if len(text) <= width else text[: width - 1] + "\u2026"
