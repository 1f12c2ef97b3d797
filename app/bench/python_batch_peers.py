#!/usr/bin/env python3
"""Time convlive's Python module on a float32 batch of planes against the GPU peers a PyTorch or
CuPy user would reach for, in the same run, measured as peers.py measures (CUDA events around
each call, warm-up excluded, median of --repeats, --frames inputs in rotation):

* convlive.filter on a CuPy array of shape (N, C, H, W), layout="NCHW", the separable weights given
  as row_weights and col_weights, out= given, on CuPy's current stream; and the same settings made
  once into a convlive.Filter, called the same way;
* CuPy: cupyx.scipy.ndimage.convolve1d along W, then along H (mode "nearest": the clamp border);
* PyTorch: the separable depthwise conv2d (1 x k then k x 1, groups = C, replicate padding) and the
  dense k x k depthwise conv2d; torchvision's gaussian_blur where it is installed;
* a copy of the same bytes (CuPy's out[...] = in), the floor.

Every peer uses the same normalised 1D gaussian (peers.py's sigma for the radius). Each result is
compared with a float64 reference (SciPy's convolve1d twice, on the CPU) on the first input; the
largest absolute difference is "max_abs_err".

    python3 app/bench/python_batch_peers.py --out python-batch.json
    python3 app/bench/python_batch_peers.py --shape 16,3,512,512 --radius 8 --repeats 50
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402  (time_calls, summarize, gaussian_weights_1d, CupyBackend)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", default="16,3,512,512", help="N,C,H,W of the float32 batch")
    ap.add_argument("--radius", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--frames", type=int, default=3)
    ap.add_argument("--out", default="python-batch.json")
    a = ap.parse_args()
    n, c, h, w = (int(v) for v in a.shape.split(","))
    r = a.radius
    if min(n, c, h, w) < 1 or r < 1 or a.repeats < 20 or a.frames < 3:
        ap.error("shape values >= 1, radius >= 1, --repeats >= 20 and --frames >= 3")

    import cupy as cp
    from cupyx.scipy import ndimage as cnd

    be = peers.CupyBackend()
    g = peers.gaussian_weights_1d(r).astype(np.float32)
    rng = np.random.default_rng(1234)
    host = [rng.random((n, c, h, w), dtype=np.float32) for _ in range(a.frames)]
    frames = [cp.asarray(x) for x in host]
    out = cp.empty_like(frames[0])
    turn = [0]

    def next_frame():
        turn[0] = (turn[0] + 1) % len(frames)
        return frames[turn[0]]

    from scipy import ndimage as snd

    want = snd.convolve1d(snd.convolve1d(host[0].astype(np.float64), g.astype(np.float64), axis=3, mode="nearest"),
                          g.astype(np.float64), axis=2, mode="nearest")
    rows = []

    def row(name: str, step, result, notes: str) -> None:
        entry = {"impl": name, "shape": [n, c, h, w], "radius": r, "notes": notes}
        try:
            times, note = peers.time_calls(be, step, a.warmup, a.repeats)
            entry.update(peers.summarize(times, w * h * n * c, 1))
            entry.pop("mpix_s", None)
            entry["gvalues_s"] = n * c * h * w / 1e9 / (entry["median_ms"] / 1e3)
            if note:
                entry["notes"] += "; " + note
            if result is not None:
                got = cp.asnumpy(result(frames[0])).astype(np.float64)
                entry["max_abs_err"] = float(np.max(np.abs(got - want)))
        except Exception as e:  # a peer that fails is a row with its error; the run goes on
            entry["error"] = f"{type(e).__name__}: {e}"
        rows.append(entry)
        print(f"{name:40s} {entry.get('median_ms', float('nan')):9.4f} ms  err {entry.get('max_abs_err', '-')}"
              f"{'  ' + entry['error'] if 'error' in entry else ''}", flush=True)

    def copy_step():
        out[...] = next_frame()

    row("copy (CuPy out[...] = in)", copy_step, None, "the floor: one read and one write of the batch")

    try:
        import convlive

        weights = [float(v) for v in g]

        def convlive_run(x):
            return convlive.filter(x, out=out, layout="NCHW", mask="custom", row_weights=weights, col_weights=weights,
                                   border="clamp", stream=cp.cuda.get_current_stream())

        row("convlive.filter (auto)", lambda: convlive_run(next_frame()), convlive_run,
            f"convlive {convlive.__version__}, layout NCHW, the weights as row_weights and col_weights")
        try:
            prepared = convlive.Filter(mask="custom", row_weights=weights, col_weights=weights, border="clamp")

            def prepared_run(x):
                return prepared(x, out=out, layout="NCHW", stream=cp.cuda.get_current_stream())

            row("convlive.Filter (auto)", lambda: prepared_run(next_frame()), prepared_run,
                "the same settings made once into a convlive.Filter, then called")
        except Exception as e:  # a module without Filter
            rows.append({"impl": "convlive.Filter (auto)", "error": f"{type(e).__name__}: {e}"})
    except Exception as e:
        rows.append({"impl": "convlive.filter (auto)", "error": f"{type(e).__name__}: {e}"})
        print("convlive:", rows[-1]["error"], flush=True)

    gd = cp.asarray(g)

    def cupy_run(x):
        return cnd.convolve1d(cnd.convolve1d(x, gd, axis=3, mode="nearest"), gd, axis=2, mode="nearest")

    row("cupyx.scipy.ndimage.convolve1d x2", lambda: cupy_run(next_frame()), cupy_run, "mode nearest")

    try:
        import torch
        import torch.nn.functional as F

        tframes = [torch.as_tensor(x, device="cuda") for x in frames]
        tg = torch.as_tensor(g, device="cuda")
        krow = tg.view(1, 1, 1, -1).repeat(c, 1, 1, 1)
        kcol = tg.view(1, 1, -1, 1).repeat(c, 1, 1, 1)
        k2d = (tg.view(-1, 1) * tg.view(1, -1)).view(1, 1, 2 * r + 1, 2 * r + 1).repeat(c, 1, 1, 1)

        def tnext():
            turn[0] = (turn[0] + 1) % len(tframes)
            return tframes[turn[0]]

        def torch_sep(x):
            y = F.conv2d(F.pad(x, (r, r, 0, 0), mode="replicate"), krow, groups=c)
            return F.conv2d(F.pad(y, (0, 0, r, r), mode="replicate"), kcol, groups=c)

        def torch_dense(x):
            return F.conv2d(F.pad(x, (r, r, r, r), mode="replicate"), k2d, groups=c)

        as_t = lambda x: torch.as_tensor(x, device="cuda")  # noqa: E731
        row("torch depthwise conv2d, separable", lambda: torch_sep(tnext()), lambda x: cp.asarray(torch_sep(as_t(x))),
            f"torch {torch.__version__}, replicate padding")
        row("torch depthwise conv2d, dense", lambda: torch_dense(tnext()),
            lambda x: cp.asarray(torch_dense(as_t(x))), "replicate padding")
        try:
            from torchvision.transforms.v2 import functional as TF

            sigma = float(peers.gaussian_sigma(r))
            row("torchvision gaussian_blur", lambda: TF.gaussian_blur(tnext(), [2 * r + 1] * 2, [sigma] * 2),
                lambda x: cp.asarray(TF.gaussian_blur(as_t(x), [2 * r + 1] * 2, [sigma] * 2)),
                "reflect padding (its only border): max_abs_err counts the border too")
        except ImportError:
            rows.append({"impl": "torchvision gaussian_blur", "error": "not installed"})
    except ImportError:
        rows.append({"impl": "torch", "error": "not installed"})

    Path(a.out).write_text(json.dumps({"device": be.device_name(), "rows": rows}, indent=1) + "\n")
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
