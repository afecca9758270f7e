"""The direct board on gpiozero's MockFactory with PWM mock pins: the pin
levels for every state and effect, and button presses as events."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware import looks
from hardware.config import DEFAULT_FLAG_PINS, LightsConfig
from hardware.direct import DirectLights, die_levels
from hardware.states import ButtonEvent, FlagState
from tests.hardware.handclock import HandClock

S = FlagState


@pytest.fixture
def factory() -> MockFactory:
    return MockFactory(pin_class=MockPWMPin)


@pytest.fixture
def clock() -> HandClock:
    return HandClock()


@pytest.fixture
def lights(factory: MockFactory, clock: HandClock) -> Iterator[DirectLights]:
    config = LightsConfig(brightness=1.0, hold_s=0.05)
    with DirectLights(config, pin_factory=factory, clock=clock, tick_s=None) as lights:
        yield lights  # type: ignore[misc]


def pin_levels(factory: MockFactory) -> list[tuple[float, float]]:
    """(north die, south die) as the pins themselves read."""
    return [(factory.pin(a).state, factory.pin(b).state) for a, b in DEFAULT_FLAG_PINS]


def at(lights: DirectLights, clock: HandClock, seconds: float) -> list[tuple[float, float]]:
    clock.advance(seconds)
    lights.refresh()
    return pin_levels(lights_factory(lights))


def lights_factory(lights: DirectLights) -> MockFactory:
    return lights.leds[0][0].pin_factory


def test_all_off_at_start(lights: DirectLights, factory: MockFactory) -> None:
    assert pin_levels(factory) == [(0, 0)] * 9
    assert all(factory.pin(p).frequency == 250 for pair in DEFAULT_FLAG_PINS for p in pair)


def test_every_steady_state(lights: DirectLights, factory: MockFactory) -> None:
    lights.set_all([S.CLAIMED_NORTH, S.CLAIMED_SOUTH, S.CLAIMABLE_NORTH, S.CLAIMABLE_SOUTH,
                    S.OFF, S.OFF, S.OFF, S.OFF, S.CLAIMED_SOUTH])
    q = round(64 / 255, 4)
    assert pin_levels(factory) == [(1, 0), (0, 1), (q, 0), (0, q), (0, 0), (0, 0), (0, 0), (0, 0),
                                   (0, 1)]
    lights.set_flag(5, S.CLAIMED_NORTH)
    assert pin_levels(factory)[4] == (1, 0)


def test_attention_blinks_amber(lights: DirectLights, factory: MockFactory,
                                clock: HandClock) -> None:
    clock.now = 100.0  # the board's clock starts at 0 ms here
    lights.set_flag(3, S.ATTENTION)
    amber = (1.0, round(160 / 255, 4))
    assert pin_levels(factory)[2] == amber
    assert at(lights, clock, 0.25)[2] == (0, 0)
    assert at(lights, clock, 0.25)[2] == amber


def test_uncertain_breathes(lights: DirectLights, factory: MockFactory, clock: HandClock) -> None:
    lights.set_flag(7, S.UNCERTAIN)
    floor = round(51 / 255, 4)
    assert pin_levels(factory)[6] == (floor, floor)
    assert at(lights, clock, 1.0)[6] == (1, 1)
    middle = at(lights, clock, 0.5)[6][0]
    assert floor < middle < 1


def test_selftest_sweeps_then_the_flags_come_back(lights: DirectLights, factory: MockFactory,
                                                  clock: HandClock) -> None:
    lights.set_all([S.CLAIMED_SOUTH] * 9)
    lights.self_test()
    assert pin_levels(factory) == [(1, 0)] + [(0, 0)] * 8
    assert at(lights, clock, 0.4) == [(0, 0)] * 4 + [(1, 0)] + [(0, 0)] * 4
    assert at(lights, clock, 0.5 + 0.2) == [(0, 0)] * 2 + [(0, 1)] + [(0, 0)] * 6
    assert at(lights, clock, 1.0) == [(0, 0)] * 3 + [(1, 1)] + [(0, 0)] * 5  # white: both dies
    assert lights.effect is not None
    assert at(lights, clock, 0.6) == [(0, 1)] * 9
    assert lights.effect is None


def test_won_by_breakthrough_and_envelopment(lights: DirectLights, factory: MockFactory,
                                             clock: HandClock) -> None:
    q = round(64 / 255, 4)
    lights.won("south", "breakthrough")
    assert pin_levels(factory) == [(0, 1)] + [(0, q)] * 8
    assert at(lights, clock, 0.3) == [(0, q)] * 3 + [(0, 1)] + [(0, q)] * 5
    lights.won("north", "envelopment")
    assert pin_levels(factory) == [(1, 0)] * 9
    assert at(lights, clock, 0.5) == [(0, 0)] * 9
    assert at(lights, clock, 3600.5) == [(1, 0)] * 9  # still going an hour later
    lights.clear_effect()
    assert pin_levels(factory) == [(0, 0)] * 9


def test_idle_is_a_dim_wave(lights: DirectLights, factory: MockFactory, clock: HandClock) -> None:
    lights.idle()
    frames = [at(lights, clock, 0.1) for _ in range(30)]
    assert all(max(max(pair) for pair in frame) <= round(64 / 255, 4) for frame in frames)
    assert len({frame[0] for frame in frames}) > 5  # it moves
    assert any(frame[0][0] > 0 and frame[1][1] > 0 for frame in frames)  # both colours


def test_brightness_and_common_anode(factory: MockFactory, clock: HandClock) -> None:
    config = LightsConfig(brightness=0.5, active_high=False)
    with DirectLights(config, pin_factory=factory, clock=clock, tick_s=None) as lights:
        lights.set_flag(1, S.CLAIMED_NORTH)
        assert lights.levels()[0] == (0.5, 0)
        # Common anode: the pin sinks current, so it sits high when the die is off.
        assert (factory.pin(4).state, factory.pin(17).state) == (0.5, 1)


def test_colours_are_mapped_onto_the_two_dies() -> None:
    dies = ((255, 0, 0), (0, 255, 0))
    assert die_levels((255, 0, 0), dies, 1.0) == (1, 0)
    assert die_levels((255, 160, 0), dies, 1.0) == (1, round(160 / 255, 4))
    assert die_levels((0, 0, 255), dies, 1.0) == (0, 0)  # blue is beyond a red/green LED
    assert die_levels((255, 255, 255), dies, 0.5) == (0.5, 0.5)
    # A red/blue LED: south's colour must then be blue to show.
    assert die_levels((0, 80, 255), ((255, 0, 0), (0, 0, 255)), 1.0) == (0, 1)


def test_configured_colours_show(factory: MockFactory, clock: HandClock) -> None:
    config = LightsConfig(brightness=1.0, colours={**looks.DEFAULT_COLOURS,
                                                   "north": (255, 128, 0)})
    with DirectLights(config, pin_factory=factory, clock=clock, tick_s=None) as lights:
        lights.set_flag(2, S.CLAIMED_NORTH)
        assert lights.levels()[1] == (1, round(128 / 255, 4))


def test_button_presses_arrive_as_events(lights: DirectLights, factory: MockFactory) -> None:
    seen: list[ButtonEvent] = []
    lights.on_event = seen.append
    factory.pin(12).drive_low()
    assert lights.events.get(timeout=1) == ButtonEvent("north")
    factory.pin(12).drive_high()
    time.sleep(0.03)  # past the 20 ms debounce
    factory.pin(16).drive_low()
    assert lights.events.get(timeout=1) == ButtonEvent("south")
    # Kept down past hold_s (0.05 s here): a second event, held.
    assert lights.events.get(timeout=2) == ButtonEvent("south", None, held=True)
    factory.pin(16).drive_high()
    assert seen == [ButtonEvent("north"), ButtonEvent("south"), ButtonEvent("south", held=True)]


def test_a_failing_handler_does_not_stop_events(lights: DirectLights,
                                                factory: MockFactory) -> None:
    def broken(event: ButtonEvent) -> None:
        raise RuntimeError("handler bug")

    lights.on_event = broken
    factory.pin(12).drive_low()
    assert lights.events.get(timeout=1) == ButtonEvent("north")


def test_background_ticker_blinks_on_its_own(factory: MockFactory) -> None:
    config = LightsConfig(brightness=1.0)
    with DirectLights(config, pin_factory=factory, tick_s=0.01) as lights:
        lights.set_flag(1, S.ATTENTION)
        seen = set()
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline and len(seen) < 2:
            seen.add(factory.pin(4).state)
            time.sleep(0.01)
        assert seen == {0, 1}


def test_close_turns_off_and_frees_the_pins(factory: MockFactory, clock: HandClock) -> None:
    lights = DirectLights(LightsConfig(), pin_factory=factory, clock=clock, tick_s=None)
    lights.set_all([S.CLAIMED_NORTH] * 9)
    lights.close()
    assert pin_levels(factory) == [(0, 0)] * 9
    again = DirectLights(LightsConfig(), pin_factory=factory, clock=clock, tick_s=None)
    again.close()


def test_bad_flag_numbers_and_states_are_refused(lights: DirectLights) -> None:
    with pytest.raises(ValueError, match=r"1\.\.9"):
        lights.set_flag(0, S.OFF)
    with pytest.raises(ValueError, match=r"1\.\.9"):
        lights.set_flag(10, S.OFF)
    with pytest.raises(TypeError):
        lights.set_flag(1, "N")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        lights.set_all([S.OFF] * 8)
    with pytest.raises(ValueError, match="breakthrough or envelopment"):
        lights.won("north", "siege")  # type: ignore[arg-type]


def test_mock_pins_of_a_long_run_keep_no_history() -> None:
    """Off a Pi the companion drives mock pins for hours: each keeps its last state,
    not every change it went through."""
    from hardware.direct import make_pin_factory

    factory = make_pin_factory("mock")
    with DirectLights(LightsConfig(), pin_factory=factory, tick_s=None) as lights:
        for k in range(200):
            lights.set_all([S.CLAIMABLE_NORTH if (k + i) % 2 else S.OFF for i in range(9)])
        pin = factory.pin(DEFAULT_FLAG_PINS[0][0])
        assert len(pin.states) <= 2
        assert pin.state == pin_levels(factory)[0][0]
