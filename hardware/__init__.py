"""The flag lights and buttons: one small interface (`lights.FlagLights`) over
the Pi's own GPIO (`direct`), a Pico on USB serial (`serial_link`), gpiozero's
mock pins, or nothing. `factory.open_lights(config)` picks the board; see
README.md and WIRING.md beside this file.

Importing this package loads neither gpiozero nor pyserial: each board's
module does, when it is opened.
"""
