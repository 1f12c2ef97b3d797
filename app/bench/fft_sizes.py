#!/usr/bin/env python3
"""Which padded sizes cuFFT transforms fastest: the fft variant's batched real 2D transforms
(forward and inverse, one plane per channel) timed with CuPy on a machine with an NVIDIA GPU, for the frame plus
2r and each rounding rule (prime factors up to 7, up to 5, up to 3, powers of two).
Medians of CUDA-event timings after warm-up. Usage: fft_sizes.py [--channels 3] [--repeats 30]"""
import argparse
import statistics

import cupy as cp
import cupyx.scipy.fft as cufft


def good(n, primes):
    m = n
    while True:
        k = m
        for p in primes:
            while k % p == 0:
                k //= p
        if k == 1:
            return m
        m += 1


def time_pair(w, h, channels, repeats):
    x = cp.random.rand(channels, h, w, dtype=cp.float32)
    spec = cufft.rfft2(x)
    plan_f = cufft.get_fft_plan(x, axes=(-2, -1), value_type="R2C")
    plan_i = cufft.get_fft_plan(spec, shape=(h, w), axes=(-2, -1), value_type="C2R")
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for i in range(repeats + 5):
        start.record()
        with plan_f:
            s = cufft.rfft2(x)
        with plan_i:
            cufft.irfft2(s, s=(h, w))
        stop.record()
        stop.synchronize()
        if i >= 5:
            times.append(cp.cuda.get_elapsed_time(start, stop))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--channels", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=30)
    a = ap.parse_args()
    rules = {"2,3,5,7": (2, 3, 5, 7), "2,3,5": (2, 3, 5), "2,3": (2, 3), "2": (2,)}
    print(f"{'frame':>10} {'r':>3} " + " ".join(f"{k:>22}" for k in rules))
    for fw, fh in ((3840, 2160), (1920, 1080)):
        for r in (8, 16, 32, 64):
            cells = []
            for primes in rules.values():
                w, h = good(fw + 2 * r, primes), good(fh + 2 * r, primes)
                ms = time_pair(w, h, a.channels, a.repeats)
                cells.append(f"{w}x{h} {ms:8.4f}")
            print(f"{fw}x{fh:<5} {r:>3} " + " ".join(f"{c:>22}" for c in cells), flush=True)


if __name__ == "__main__":
    main()
