"""Cuts the byte stream from the host into lines, refusing over-long ones."""

TOO_LONG = None  # stands in the output for a line that exceeded the limit


class LineReader:
    def __init__(self, limit):
        self.limit = limit
        self.buf = bytearray()
        self.overflow = False  # dropping bytes until the next LF

    def feed(self, data):
        """The complete lines in `data` (CR and LF stripped), TOO_LONG for each
        line over the limit, and nothing for empty lines."""
        out = []
        for byte in data:
            if byte == 10:  # LF
                if self.overflow:
                    out.append(TOO_LONG)
                elif self.buf:
                    out.append(bytes(self.buf))
                self.buf = bytearray()
                self.overflow = False
            elif byte == 13 or self.overflow:
                continue
            elif len(self.buf) >= self.limit:
                # Keep nothing of it: a half line must never run as a command.
                self.overflow = True
                self.buf = bytearray()
            else:
                self.buf.append(byte)
        return out
