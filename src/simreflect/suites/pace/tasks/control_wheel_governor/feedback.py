"""The flywheel governor's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    return [
        f"flywheel at {t['speed']:.2f} rad/s (set {t['set']:g}); between {t['low']:.2f} and {t['peak']:.2f} rad/s "
        f"over the run",
        f"worst deviation {100 * t['worst_err']:+.2f}% at step {t['worst_at']}; mean deviation "
        f"{100 * t['mean_err']:.2f}%; {t['excursions']} excursions out of the band, {t['out_time']:.2f} s in all",
        f"brake at {t['brake_temp']:.0f} C (peak {t['peak_temp']:.0f} C), {t['brake_energy'] / 1000:.1f} kJ absorbed",
    ]
