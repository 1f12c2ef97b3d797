"""WxH frame sizes on the benchmark scripts' command lines (plot.py, shares.py, peers.py)."""

from __future__ import annotations

import argparse


def parse_size(text: str) -> tuple[int, int]:
    """'1920x1080' -> (1920, 1080); anything else, or a zero side, is an argparse error."""
    width, sep, height = text.strip().lower().partition("x")
    if not sep or not width.isdigit() or not height.isdigit() or int(width) == 0 or int(height) == 0:
        raise argparse.ArgumentTypeError(f"bad size {text!r}, want WxH (e.g. 1920x1080), each at least 1")
    return int(width), int(height)
