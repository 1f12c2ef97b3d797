#!/usr/bin/env python3
"""Time the GPU convolution routines a convlive user would otherwise reach for.

convlive-bench times convlive's own kernels; this script times the "peers"
(CuPy's cupyx.scipy.ndimage and PyTorch's conv2d) on the same job, measured the
same way, so that the two JSON files can be compared (see plot.py):

* frames are RGBA8 (uint8, shape (H, W, 4)), random from
  numpy.random.default_rng(1234); ``--frames`` (>= 3) distinct frames are put
  on the GPU up front and each launch takes the next one in rotation, so the
  60 MB L2 cache cannot hold the input from one call to the next;
* masks are "gaussian" at each radius r (sigma = 0.3*(r-1)+0.8, as OpenCV's
  getGaussianKernel picks for ksize = 2r+1; 2D mask = outer product of the
  normalised 1D weights) and "custom", a non-separable (2r+1)^2 random mask
  (normalised to sum 1; its own default_rng(1234)) at
  r = ``--custom-radius``, 2D only;
* borders are clamped (replicate) everywhere;
* each row gets ``--warmup`` untimed calls (at least two: the first absorbs
  kernel compilation and cuDNN's algorithm search), then ``--repeats`` calls,
  each bracketed by CUDA events on the current stream; median, min and p90 of
  the per-call times are reported. Timed calls are queued back to back and
  the events read after one final sync, so host launch gaps are hidden when
  the GPU is the bottleneck. A row whose single call takes over 200 ms is
  timed with only 5 repeats (said in its notes).

Before timing, each (peer, mask) pair is run once on a small frame and compared
with a float64 NumPy reference of the same convolution; the largest absolute
difference is stored as "max_abs_err" (0.5 means correctly rounded; about 1
means the library truncates to uint8).

Run on a machine with an NVIDIA GPU, from the repository root:

    python3 app/bench/peers.py --out peers.json
    python3 app/bench/peers.py --out peers.json --sizes 3840x2160 \\
        --radii 1,4,16 --only torch
    python3 app/bench/peers.py --out quick.json --quick     # smoke run
    python3 app/bench/peers.py --self-test                  # CPU-only checks

A library that cannot be imported gives rows with "error": "not installed";
a combination that fails gets its error message in its row; the run goes on.
The JSON file is rewritten after every row, so a killed run keeps its results.
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import os
import sys
from dataclasses import dataclass
from typing import Callable

import numpy as np

from frame_size import parse_size

SEED = 1234
SLOW_CALL_MS = 200.0        # a call slower than this gets only SLOW_REPEATS
SLOW_REPEATS = 5
MIN_REPEATS = 20
MIN_FRAMES = 3
CHECK_WIDTH, CHECK_HEIGHT = 160, 96     # frame used for the correctness check

DEFAULT_SIZES = "1920x1080,3840x2160"
DEFAULT_RADII = "1,2,4,8,16,32"
QUICK_SIZES = "640x480"
QUICK_RADII = "1,4"
QUICK_REPEATS = 20


# --------------------------------------------------------------------- masks

@dataclass(frozen=True, eq=False)
class Mask:
    """A (2r+1) x (2r+1) convolution mask; weights1d is set when separable."""

    kind: str                       # "gaussian" or "custom"
    radius: int
    weights2d: np.ndarray           # float64, sums to 1
    weights1d: np.ndarray | None    # float64, sums to 1; outer(w1, w1) = w2

    @property
    def separable(self) -> bool:
        return self.weights1d is not None

    @property
    def taps(self) -> int:
        return 2 * self.radius + 1


def gaussian_sigma(radius: int) -> float:
    """OpenCV getGaussianKernel's default sigma for ksize = 2*radius + 1."""
    return 0.3 * (radius - 1) + 0.8


def gaussian_weights_1d(radius: int) -> np.ndarray:
    """Normalised 1D Gaussian weights g[k], k = -radius..radius."""
    sigma = gaussian_sigma(radius)
    k = np.arange(-radius, radius + 1, dtype=np.float64)
    g = np.exp(-k * k / (2.0 * sigma * sigma))
    return g / g.sum()


def gaussian_mask(radius: int) -> Mask:
    """Separable Gaussian mask: 2D weights are the outer product of 1D ones."""
    g = gaussian_weights_1d(radius)
    return Mask("gaussian", radius, np.outer(g, g), g)


def custom_mask(radius: int, seed: int = SEED) -> Mask:
    """Non-separable mask of positive random weights normalised to sum 1."""
    rng = np.random.default_rng(seed)
    taps = 2 * radius + 1
    weights = rng.random((taps, taps))
    return Mask("custom", radius, weights / weights.sum(), None)


def build_masks(radii: list[int], custom_radius: int) -> list[Mask]:
    """Gaussian masks at every radius, then the custom mask (if radius > 0)."""
    masks = [gaussian_mask(r) for r in radii]
    if custom_radius > 0:
        masks.append(custom_mask(custom_radius))
    return masks


def make_frames(width: int, height: int, count: int,
                seed: int = SEED) -> list[np.ndarray]:
    """`count` distinct random RGBA8 frames of shape (height, width, 4)."""
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, size=(height, width, 4), dtype=np.uint8)
            for _ in range(count)]


def reference_convolve(frame: np.ndarray, weights2d: np.ndarray) -> np.ndarray:
    """Float64 2D convolution per channel with clamped borders (CPU).

    out[y, x] = sum_{i, j} w[i, j] * in[y + r - i, x + r - j], the same as
    scipy.ndimage.convolve(frame, w[:, :, None], mode="nearest") before any
    rounding. Meant for small frames only.
    """
    radius = weights2d.shape[0] // 2
    height, width = frame.shape[:2]
    padded = np.pad(frame.astype(np.float64),
                    ((radius, radius), (radius, radius), (0, 0)), mode="edge")
    flipped = weights2d[::-1, ::-1]
    result = np.zeros(frame.shape, dtype=np.float64)
    for dy in range(weights2d.shape[0]):
        for dx in range(weights2d.shape[1]):
            result += flipped[dy, dx] * padded[dy:dy + height, dx:dx + width]
    return result


# ------------------------------------------------------------------ backends

class CupyBackend:
    """CuPy + cupyx.scipy.ndimage; events and syncs on the current stream."""

    library = "cupy"

    def __init__(self) -> None:
        import cupy
        import cupyx.scipy.ndimage
        self.cp = cupy
        self.ndi = cupyx.scipy.ndimage
        cupy.cuda.runtime.getDeviceCount()      # fails early without a GPU

    def version(self) -> str:
        return self.cp.__version__

    def device_name(self) -> str:
        props = self.cp.cuda.runtime.getDeviceProperties(
            self.cp.cuda.Device().id)
        name = props["name"]
        return name.decode() if isinstance(name, bytes) else str(name)

    def upload(self, frames: list[np.ndarray]) -> list:
        return [self.cp.asarray(frame) for frame in frames]

    def download(self, array) -> np.ndarray:
        return self.cp.asnumpy(array)

    def event(self):
        return self.cp.cuda.Event()

    def record(self, event) -> None:
        event.record(self.cp.cuda.get_current_stream())

    def elapsed_ms(self, start, stop) -> float:
        return float(self.cp.cuda.get_elapsed_time(start, stop))

    def synchronize(self) -> None:
        self.cp.cuda.get_current_stream().synchronize()

    def release(self) -> None:
        self.cp.get_default_memory_pool().free_all_blocks()


class TorchBackend:
    """PyTorch on CUDA, cudnn.benchmark on; events on the current stream."""

    library = "torch"

    def __init__(self) -> None:
        import torch
        import torch.nn.functional
        if not torch.cuda.is_available():
            raise RuntimeError("torch sees no CUDA device")
        torch.backends.cudnn.benchmark = True
        self.torch = torch
        self.F = torch.nn.functional
        self.device = torch.device("cuda")

    def version(self) -> str:
        return self.torch.__version__

    def cudnn_version(self) -> str | None:
        version = self.torch.backends.cudnn.version()
        return None if version is None else str(version)

    def device_name(self) -> str:
        return self.torch.cuda.get_device_name(self.device)

    def upload(self, frames: list[np.ndarray]) -> list:
        return [self.torch.from_numpy(frame).to(self.device)
                for frame in frames]

    def download(self, tensor) -> np.ndarray:
        return tensor.cpu().numpy()

    def event(self):
        return self.torch.cuda.Event(enable_timing=True)

    def record(self, event) -> None:
        event.record(self.torch.cuda.current_stream())

    def elapsed_ms(self, start, stop) -> float:
        return float(start.elapsed_time(stop))

    def synchronize(self) -> None:
        self.torch.cuda.synchronize()

    def release(self) -> None:
        self.torch.cuda.empty_cache()


BACKENDS = {"cupy": CupyBackend, "torch": TorchBackend}


# --------------------------------------------------------------------- peers

@dataclass
class Prepared:
    """A peer bound to its frames, mask and preallocated buffers."""

    step: Callable[[], None]            # one call on the next frame
    output: Callable[[], np.ndarray]    # host copy of the latest output


@dataclass(frozen=True)
class Peer:
    name: str
    library: str
    separable_only: bool
    notes: str
    prepare: Callable[..., Prepared]    # (backend, frames, mask) -> Prepared


def prepare_cupy_convolve(be: CupyBackend, frames: list,
                          mask: Mask) -> Prepared:
    weights = be.cp.asarray(mask.weights2d[:, :, None], dtype=be.cp.float32)
    out = be.cp.empty_like(frames[0])
    rotation = itertools.cycle(frames)

    def step() -> None:
        be.ndi.convolve(next(rotation), weights, output=out, mode="nearest")

    return Prepared(step, lambda: be.download(out))


def prepare_cupy_convolve1d(be: CupyBackend, frames: list,
                            mask: Mask) -> Prepared:
    weights = be.cp.asarray(mask.weights1d, dtype=be.cp.float32)
    tmp = be.cp.empty(frames[0].shape, dtype=be.cp.float32)
    out = be.cp.empty_like(frames[0])
    rotation = itertools.cycle(frames)

    def step() -> None:
        be.ndi.convolve1d(next(rotation), weights, axis=1, output=tmp,
                          mode="nearest")
        be.ndi.convolve1d(tmp, weights, axis=0, output=out, mode="nearest")

    return Prepared(step, lambda: be.download(out))


def _torch_weights(be: TorchBackend, kernel: np.ndarray, shape: tuple,
                   dtype) -> object:
    """Depthwise weights (4, 1, kh, kw): the flipped kernel for each channel.

    conv2d computes a correlation; flipping the kernel makes it the same
    convolution as ndimage.convolve (a no-op for the symmetric Gaussian).
    """
    flipped = np.ascontiguousarray(kernel[::-1, ::-1].reshape(shape[2:]))
    stacked = np.ascontiguousarray(np.broadcast_to(flipped, shape))
    return be.torch.from_numpy(stacked).to(be.device, dtype)


def _torch_chain(be: TorchBackend, frames: list, radius: int,
                 weights: list) -> Prepared:
    """uint8 HWC -> NCHW float -> replicate pad -> conv2d(s) -> uint8 HWC."""
    torch, F = be.torch, be.F
    dtype = weights[0].dtype
    pad = (radius, radius, radius, radius)
    out = torch.empty_like(frames[0])
    out_nchw = out.permute(2, 0, 1).unsqueeze(0)    # view of the HWC output
    rotation = itertools.cycle(frames)

    def step() -> None:
        x = next(rotation).permute(2, 0, 1).unsqueeze(0).to(dtype)
        x = F.pad(x, pad, mode="replicate")
        for w in weights:
            x = F.conv2d(x, w, groups=4)
        out_nchw.copy_(x.round_().clamp_(0, 255))  # cast to uint8 on copy

    return Prepared(step, lambda: be.download(out))


def make_torch_conv2d(dtype_name: str) -> Callable[..., Prepared]:
    def prepare(be: TorchBackend, frames: list, mask: Mask) -> Prepared:
        dtype = getattr(be.torch, dtype_name)
        taps = mask.taps
        w = _torch_weights(be, mask.weights2d, (4, 1, taps, taps), dtype)
        return _torch_chain(be, frames, mask.radius, [w])
    return prepare


def make_torch_separable(dtype_name: str) -> Callable[..., Prepared]:
    def prepare(be: TorchBackend, frames: list, mask: Mask) -> Prepared:
        dtype = getattr(be.torch, dtype_name)
        taps = mask.taps
        g = mask.weights1d[None, :]
        horizontal = _torch_weights(be, g, (4, 1, 1, taps), dtype)
        vertical = _torch_weights(be, g, (4, 1, taps, 1), dtype)
        return _torch_chain(be, frames, mask.radius, [horizontal, vertical])
    return prepare


_CUPY_DETAIL = ("float32 weights, so float32 accumulation; mode=nearest; "
                "output= preallocated uint8 (cast as CuPy does, not rounded)")
_TORCH_DETAIL = ("timed chain: uint8 HWC -> permute (NCHW view, channels_last "
                 "strides) -> {dtype} -> F.pad replicate -> depthwise conv2d "
                 "groups=4{what} -> round_, clamp_ -> copy_ (casts to uint8) "
                 "into a preallocated HWC output; intermediates come from "
                 "torch's caching allocator inside the timed call; weights "
                 "flipped so it is a convolution; cudnn.benchmark=True")
_SEPARABLE_PASSES = (" (4,1,1,2r+1) then (4,1,2r+1,1), the frame padded once "
                     "by r on all four sides before both passes")

PEERS = [
    Peer("cupy/ndimage.convolve", "cupy", False,
         "cupyx.scipy.ndimage.convolve with a (2r+1,2r+1,1) mask; "
         + _CUPY_DETAIL,
         prepare_cupy_convolve),
    Peer("cupy/ndimage.convolve1d", "cupy", True,
         "convolve1d axis 1 then axis 0 via a preallocated float32 "
         "intermediate; " + _CUPY_DETAIL,
         prepare_cupy_convolve1d),
    Peer("torch/conv2d-fp32", "torch", False,
         _TORCH_DETAIL.format(dtype="float32", what=" (4,1,2r+1,2r+1)"),
         make_torch_conv2d("float32")),
    Peer("torch/conv2d-fp16", "torch", False,
         _TORCH_DETAIL.format(dtype="float16", what=" (4,1,2r+1,2r+1)"),
         make_torch_conv2d("float16")),
    Peer("torch/separable-fp32", "torch", True,
         _TORCH_DETAIL.format(dtype="float32", what=_SEPARABLE_PASSES),
         make_torch_separable("float32")),
    Peer("torch/separable-fp16", "torch", True,
         _TORCH_DETAIL.format(dtype="float16", what=_SEPARABLE_PASSES),
         make_torch_separable("float16")),
]


# -------------------------------------------------------------------- timing

def time_calls(be, step: Callable[[], None], warmup: int,
               repeats: int) -> tuple[list[float], str]:
    """Per-call GPU times in ms, plus a note when the row was cut short.

    The first call and a timed probe call count as warm-up (so at least two
    warm-up calls happen). If the probe takes over SLOW_CALL_MS, the rest of
    the warm-up is skipped and only SLOW_REPEATS calls are timed. Timed calls
    are queued back to back and the events are read after one final sync.
    """
    step()
    be.synchronize()
    start, stop = be.event(), be.event()
    be.record(start)
    step()
    be.record(stop)
    be.synchronize()
    probe_ms = be.elapsed_ms(start, stop)

    note = ""
    if probe_ms > SLOW_CALL_MS:
        repeats = min(repeats, SLOW_REPEATS)
        note = (f"slow: one call took {probe_ms:.0f} ms > {SLOW_CALL_MS:.0f} "
                f"ms, so 2 warm-up calls and only {repeats} timed repeats")
    else:
        for _ in range(max(0, warmup - 2)):
            step()

    pairs = [(be.event(), be.event()) for _ in range(repeats)]
    for start, stop in pairs:
        be.record(start)
        step()
        be.record(stop)
    be.synchronize()
    return [be.elapsed_ms(start, stop) for start, stop in pairs], note


def summarize(times_ms: list[float], width: int, height: int) -> dict:
    times = np.asarray(times_ms, dtype=np.float64)
    median = float(np.median(times))
    return {
        "median_ms": median,
        "min_ms": float(times.min()),
        "p90_ms": float(np.percentile(times, 90)),
        "mpix_s": (width * height / 1e6 / (median / 1e3)
                   if median > 0 else None),
        "repeats": int(times.size),
    }


def describe(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip().replace("\n", " ")
    return text if len(text) <= 400 else text[:397] + "..."


# ------------------------------------------------------------------- the run

class Checker:
    """Runs each (peer, mask) once on a small frame against the reference."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.frame = make_frames(CHECK_WIDTH, CHECK_HEIGHT, 1,
                                 seed=SEED + 1)[0]
        self._references: dict[tuple[str, int], np.ndarray] = {}
        self._errors: dict[tuple[str, str, int], float | None] = {}

    def _reference(self, mask: Mask) -> np.ndarray:
        key = (mask.kind, mask.radius)
        if key not in self._references:
            self._references[key] = reference_convolve(self.frame,
                                                       mask.weights2d)
        return self._references[key]

    def max_abs_err(self, be, peer: Peer, mask: Mask) -> float | None:
        if not self.enabled:
            return None
        key = (peer.name, mask.kind, mask.radius)
        if key not in self._errors:
            prepared = peer.prepare(be, be.upload([self.frame]), mask)
            prepared.step()
            be.synchronize()
            got = prepared.output().astype(np.float64)
            diff = np.abs(got - self._reference(mask))
            self._errors[key] = float(diff.max())
        return self._errors[key]


def new_row(peer: Peer, mask: Mask, width: int, height: int) -> dict:
    return {"impl": peer.name, "mask": mask.kind, "radius": mask.radius,
            "width": width, "height": height,
            "median_ms": None, "min_ms": None, "p90_ms": None, "mpix_s": None,
            "repeats": None, "max_abs_err": None, "notes": peer.notes,
            "error": None}


def run_row(be, peer: Peer, frames: list, mask: Mask, row: dict,
            args: argparse.Namespace, checker: Checker) -> None:
    """Fill `row` in place; any failure becomes row["error"]."""
    try:
        row["max_abs_err"] = checker.max_abs_err(be, peer, mask)
        prepared = peer.prepare(be, frames, mask)
        times, note = time_calls(be, prepared.step, args.warmup, args.repeats)
        row.update(summarize(times, row["width"], row["height"]))
        if note:
            row["notes"] = f"{note}; {row['notes']}"
    except Exception as exc:        # record it, keep going
        row["error"] = describe(exc)
        try:
            be.synchronize()
            be.release()
        except Exception:           # a sticky CUDA error: later rows fail too
            pass


TABLE_HEADER = (f"{'impl':<24} {'mask':<8} {'r':>3} {'size':>10} "
                f"{'median':>9} {'min':>9} {'p90':>9} {'MPix/s':>9} "
                f"{'err':>5} {'n':>3}")


def format_row(row: dict) -> str:
    size = f"{row['width']}x{row['height']}"
    head = (f"{row['impl']:<24} {row['mask']:<8} {row['radius']:>3} "
            f"{size:>10}")
    if row["error"]:
        return f"{head} ERROR: {row['error']}"
    err = row["max_abs_err"]
    err_text = "-" if err is None else f"{err:.2f}"
    mpix = row["mpix_s"] or 0.0
    return (f"{head} {row['median_ms']:9.4f} {row['min_ms']:9.4f} "
            f"{row['p90_ms']:9.4f} {mpix:9.1f} {err_text:>5} "
            f"{row['repeats']:>3}")


def print_fastest(results: list[dict]) -> None:
    best: dict[tuple, dict] = {}
    for row in results:
        if row["error"] or row["median_ms"] is None:
            continue
        key = (row["width"], row["height"], row["mask"], row["radius"])
        if key not in best or row["median_ms"] < best[key]["median_ms"]:
            best[key] = row
    print("\nfastest peer per (size, mask, radius):", flush=True)
    if not best:
        print("  (no successful rows)", flush=True)
    for (width, height, mask, radius), row in sorted(best.items()):
        print(f"  {width}x{height} {mask:<8} r={radius:<3} {row['impl']:<24} "
              f"{row['median_ms']:.4f} ms  {row['mpix_s']:.1f} MPix/s",
              flush=True)


def write_json(path: str, document: dict) -> None:
    """Write atomically so an interrupted run never leaves half a file."""
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1)
        handle.write("\n")
    os.replace(tmp, path)


def load_backends(libraries: set[str]) -> tuple[dict, dict]:
    """Backends that loaded, and an error string for those that did not."""
    loaded, failed = {}, {}
    for library in sorted(libraries):
        try:
            loaded[library] = BACKENDS[library]()
        except ModuleNotFoundError:
            failed[library] = "not installed"
        except Exception as exc:
            failed[library] = describe(exc)
    return loaded, failed


def versions(backends: dict) -> dict:
    info = {"cupy": None, "torch": None, "numpy": np.__version__}
    for library, be in backends.items():
        info[library] = be.version()
    if "torch" in backends:
        info["cudnn"] = backends["torch"].cudnn_version()
    return info


def run(args: argparse.Namespace) -> int:
    peers = [p for p in PEERS
             if not args.only or any(p.name.startswith(t) for t in args.only)]
    masks = build_masks(args.radii, args.custom_radius)
    backends, failed = load_backends({p.library for p in peers})
    for library, reason in failed.items():
        print(f"{library}: {reason}", file=sys.stderr, flush=True)

    device = next((be.device_name() for be in backends.values()), "unknown")
    document = {
        "tool": "peers.py",
        "date": datetime.datetime.now(datetime.timezone.utc)
                .isoformat(timespec="seconds"),
        "device": device,
        "versions": versions(backends),
        "settings": {"repeats": args.repeats, "warmup": args.warmup,
                     "frames": args.frames, "border": "clamp",
                     "seed": SEED, "custom_radius": args.custom_radius,
                     "slow_call_ms": SLOW_CALL_MS,
                     "slow_repeats": SLOW_REPEATS,
                     "check": not args.no_check},
        "results": [],
    }
    results = document["results"]
    checker = Checker(enabled=not args.no_check)

    print(f"device: {device}", flush=True)
    print(TABLE_HEADER, flush=True)
    for width, height in args.sizes:
        host_frames = make_frames(width, height, args.frames)
        device_frames, size_failed = {}, dict(failed)
        for library, be in backends.items():
            try:
                device_frames[library] = be.upload(host_frames)
            except Exception as exc:
                size_failed[library] = f"upload failed: {describe(exc)}"
        for mask in masks:
            for peer in peers:
                if peer.separable_only and not mask.separable:
                    continue
                row = new_row(peer, mask, width, height)
                if peer.library in size_failed:
                    row["error"] = size_failed[peer.library]
                else:
                    run_row(backends[peer.library], peer,
                            device_frames[peer.library], mask, row, args,
                            checker)
                results.append(row)
                print(format_row(row), flush=True)
                if args.out:
                    write_json(args.out, document)
        del device_frames
        for be in backends.values():
            try:
                be.release()
            except Exception:
                pass

    print_fastest(results)
    if args.out:
        write_json(args.out, document)
        print(f"\nwrote {len(results)} rows to {args.out}", flush=True)
    return 0


# ------------------------------------------------------------- self-test (CPU)

def self_test() -> int:
    """Checks of the mask and reference code that need no GPU."""
    for radius in (1, 2, 4, 8, 16, 32):
        mask = gaussian_mask(radius)
        g = mask.weights1d
        assert g.shape == (2 * radius + 1,)
        assert abs(g.sum() - 1.0) < 1e-12 and np.allclose(g, g[::-1])
        assert abs(mask.weights2d.sum() - 1.0) < 1e-12
        assert np.argmax(g) == radius
    assert abs(gaussian_sigma(1) - 0.8) < 1e-12
    assert abs(gaussian_sigma(4) - 1.7) < 1e-12

    custom = custom_mask(8)
    assert custom.weights2d.shape == (17, 17) and not custom.separable
    assert abs(custom.weights2d.sum() - 1.0) < 1e-12
    assert np.linalg.matrix_rank(custom.weights2d) > 1
    assert np.array_equal(custom.weights2d, custom_mask(8).weights2d)

    frames = make_frames(33, 17, 3)
    assert frames[0].shape == (17, 33, 4) and frames[0].dtype == np.uint8
    assert not np.array_equal(frames[0], frames[1])

    # A shifted delta must shift the image (convolution, clamped border).
    delta = np.zeros((3, 3))
    delta[1, 0] = 1.0                   # out[y, x] = in[y, x + 1]
    shifted = reference_convolve(frames[0], delta)
    assert np.array_equal(shifted[:, :-1], frames[0][:, 1:])
    assert np.array_equal(shifted[:, -1], frames[0][:, -1])

    try:
        import scipy.ndimage
    except ImportError:
        print("self-test: scipy missing, skipped the scipy comparison")
    else:
        for mask in (gaussian_mask(3), custom_mask(2)):
            ref = scipy.ndimage.convolve(frames[1].astype(np.float64),
                                         mask.weights2d[:, :, None],
                                         mode="nearest")
            assert np.allclose(ref, reference_convolve(frames[1],
                                                       mask.weights2d))
    print("self-test: ok")
    return 0


# ---------------------------------------------------------------- arguments

def parse_sizes(text: str) -> list[tuple[int, int]]:
    return [parse_size(item) for item in text.split(",")]


def parse_radii(text: str) -> list[int]:
    try:
        radii = [int(item) for item in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad radius list {text!r}") from None
    if any(r < 1 for r in radii):
        raise argparse.ArgumentTypeError("radii must be >= 1")
    return radii


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Time CuPy ndimage and PyTorch conv2d on RGBA8 frames, "
                    "the way convlive-bench times convlive.")
    parser.add_argument("--out", help="JSON file to write")
    parser.add_argument("--sizes", type=parse_sizes, default=None,
                        help=f"WxH list (default {DEFAULT_SIZES})")
    parser.add_argument("--radii", type=parse_radii, default=None,
                        help=f"Gaussian radii (default {DEFAULT_RADII})")
    parser.add_argument("--custom-radius", type=int, default=8,
                        help="radius of the non-separable random mask "
                             "(0: none; default 8)")
    parser.add_argument("--repeats", type=int, default=None,
                        help=f"timed calls per row (default 30, >= "
                             f"{MIN_REPEATS})")
    parser.add_argument("--warmup", type=int, default=5,
                        help="untimed calls per row (default 5, at least 2 "
                             "happen)")
    parser.add_argument("--frames", type=int, default=3,
                        help=f"distinct input frames in rotation (>= "
                             f"{MIN_FRAMES})")
    parser.add_argument("--only", default=None,
                        type=lambda s: [t for t in s.split(",") if t],
                        help="comma list of impl-name prefixes, e.g. "
                             "cupy,torch/conv2d")
    parser.add_argument("--quick", action="store_true",
                        help=f"smoke run: sizes {QUICK_SIZES}, radii "
                             f"{QUICK_RADII}, repeats {QUICK_REPEATS} "
                             "(unless given explicitly)")
    parser.add_argument("--no-check", action="store_true",
                        help="skip the correctness check on a small frame")
    parser.add_argument("--self-test", action="store_true",
                        help="run the CPU-only checks and exit")
    args = parser.parse_args(argv)

    if args.self_test:
        return args
    if args.sizes is None:
        args.sizes = parse_sizes(QUICK_SIZES if args.quick else DEFAULT_SIZES)
    if args.radii is None:
        args.radii = parse_radii(QUICK_RADII if args.quick else DEFAULT_RADII)
    if args.repeats is None:
        args.repeats = QUICK_REPEATS if args.quick else 30
    if not args.out:
        parser.error("--out is required")
    if args.repeats < MIN_REPEATS:
        parser.error(f"--repeats must be at least {MIN_REPEATS}")
    if args.frames < MIN_FRAMES:
        parser.error(f"--frames must be at least {MIN_FRAMES}")
    if args.warmup < 0 or args.custom_radius < 0:
        parser.error("--warmup and --custom-radius must be >= 0")
    if args.only:
        unknown = [t for t in args.only
                   if not any(p.name.startswith(t) for p in PEERS)]
        if unknown:
            parser.error(f"--only: no impl starts with {', '.join(unknown)}; "
                         f"known: {', '.join(p.name for p in PEERS)}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.self_test:
        return self_test()
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
