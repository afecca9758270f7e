"""Stand-in for the Pico's `neopixel`, only to run firmware/main.py's wiring
under the unix port; same interface as micropython-lib's NeoPixel."""


class NeoPixel:
    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.buf = bytearray(n * bpp)

    def __len__(self):
        return self.n

    def __setitem__(self, i, rgb):
        self.buf[3 * i:3 * i + 3] = bytes(rgb)

    def __getitem__(self, i):
        return tuple(self.buf[3 * i:3 * i + 3])

    def write(self):
        pass
