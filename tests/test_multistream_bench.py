#!/usr/bin/env python3
"""The multi-stream benchmark's own arithmetic (app/bench/multistream-bench.py), without a GPU:
the pipelines it launches, the time it reads from gst-launch, the rates, ratios and scaling."""
import importlib.util
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.environ.get("CONVLIVE_MULTISTREAM", os.path.join(HERE, "..", "app", "bench", "multistream-bench.py"))
spec = importlib.util.spec_from_file_location("multistream_bench", PATH)
mb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mb)


class Pipelines(unittest.TestCase):
    def test_decoders_are_named_per_gpu(self):
        self.assertEqual(mb.decoder_name(0), "nvh264dec")
        self.assertEqual(mb.decoder_name(1), "nvh264device1dec")
        self.assertEqual(mb.decoder_name(3), "nvh264device3dec")

    def test_each_mode_builds_its_branch(self):
        dec = mb.branch("a.mp4", 0, "decode", "mask=gaussian radius=4")
        self.assertEqual(dec, ["filesrc", "location=a.mp4", "!", "qtdemux", "!", "h264parse", "!", "nvh264dec", "!",
                               "fakesink", "sync=false"])
        cuda = mb.branch("a.mp4", 1, "cuda", "mask=gaussian radius=4")
        self.assertIn("nvh264device1dec", cuda)
        i = cuda.index("convlivefilter")
        self.assertEqual(cuda[i + 1:i + 4], ["cuda-device-id=1", "mask=gaussian", "radius=4"])
        self.assertNotIn("cudadownload", cuda)
        system = mb.branch("a.mp4", 0, "system", "mask=box radius=2")
        self.assertLess(system.index("convlivefilter"), system.index("cudadownload"))
        self.assertLess(system.index("cudadownload"), system.index("fakesink"))

    def test_branches_spread_round_robin_over_the_gpus(self):
        args = mb.pipeline("a.mp4", 5, 2, "cuda", "mask=gaussian radius=1")
        self.assertEqual(args.count("filesrc"), 5)
        ids = [a for a in args if a.startswith("cuda-device-id=")]
        self.assertEqual(ids, ["cuda-device-id=0", "cuda-device-id=1", "cuda-device-id=0", "cuda-device-id=1",
                               "cuda-device-id=0"])
        self.assertEqual(args.count("nvh264dec"), 3)
        self.assertEqual(args.count("nvh264device1dec"), 2)


class Processes(unittest.TestCase):
    def test_layouts_split_the_branches(self):
        self.assertEqual(mb.process_branches(5, 2, "one"), [[0, 1, 2, 3, 4]])
        self.assertEqual(mb.process_branches(5, 2, "per-gpu"), [[0, 2, 4], [1, 3]])
        self.assertEqual(mb.process_branches(1, 2, "per-gpu"), [[0]])  # no process for an idle GPU
        self.assertEqual(mb.process_branches(3, 1, "per-stream"), [[0], [1], [2]])

    def test_a_process_runs_its_branches_on_their_gpus(self):
        args = mb.pipeline("a.mp4", 5, 2, "cuda", "mask=box radius=1", {1, 3})
        self.assertEqual(args.count("filesrc"), 2)
        self.assertEqual([a for a in args if a.startswith("cuda-device-id=")], ["cuda-device-id=1"] * 2)
        self.assertEqual(args.count("nvh264device1dec"), 2)

    def test_processes_run_together_and_each_answers(self):
        say = [sys.executable, "-c", "import time; time.sleep(0.3); print('Execution ended after 0:00:00.3')"]
        fail = [sys.executable, "-c", "import sys; print('ERROR: no element'); sys.exit(1)"]
        t0 = mb.time.monotonic()
        out = mb.run_processes([say, say, fail], 30)
        self.assertLess(mb.time.monotonic() - t0, 2.0, "the processes ran one after another")
        self.assertEqual([rc for rc, _ in out], [0, 0, 1])
        self.assertIn("ERROR: no element", out[2][1])
        self.assertIsNone(mb.longest_seconds(out))
        self.assertAlmostEqual(mb.longest_seconds(out[:2]), 0.3)

    def test_the_longest_process_sets_the_time(self):
        ok = "Execution ended after 0:00:02.000000000\n"
        self.assertAlmostEqual(mb.longest_seconds([(0, ok), (0, "Execution ended after 0:00:02.500000000")]), 2.5)
        self.assertIsNone(mb.longest_seconds([(0, ok), (1, "ERROR")]))
        self.assertIsNone(mb.longest_seconds([(0, ok), (0, "no time here")]))
        self.assertIsNone(mb.longest_seconds([]))


class Arithmetic(unittest.TestCase):
    def test_reads_the_time_from_playing_to_eos(self):
        text = "Setting pipeline to PLAYING ...\nGot EOS from element \"pipeline0\".\nExecution ended after 0:00:01.250000000\n"
        self.assertAlmostEqual(mb.ended_seconds(text), 1.25)
        self.assertAlmostEqual(mb.ended_seconds("Execution ended after 1:02:03.5"), 3723.5)
        self.assertIsNone(mb.ended_seconds("ERROR: pipeline doesn't want to preroll."))

    def test_rate_counts_every_stream(self):
        self.assertAlmostEqual(mb.rate(300, 4, 1.5), 800.0)
        self.assertIsNone(mb.rate(300, 4, None))
        self.assertIsNone(mb.rate(300, 4, 0))

    def test_summary_ratios_and_scaling(self):
        runs = []
        for rep, (d, c) in enumerate([(1000.0, 990.0), (1100.0, 970.0), (1050.0, 980.0)]):
            runs.append({"clip": "1080p", "gpus": 1, "streams": 8, "mode": "decode", "fps": d, "rep": rep})
            runs.append({"clip": "1080p", "gpus": 1, "streams": 8, "mode": "cuda", "fps": c, "rep": rep})
        runs.append({"clip": "1080p", "gpus": 2, "streams": 8, "mode": "decode", "fps": 2000.0, "rep": 0})
        runs.append({"clip": "1080p", "gpus": 2, "streams": 8, "mode": "cuda", "fps": 1960.0, "rep": 0})
        runs.append({"clip": "1080p", "gpus": 2, "streams": 8, "mode": "system", "fps": None, "rep": 0})  # failed
        rows = {(r["gpus"], r["mode"]): r for r in mb.summarise(runs)}
        self.assertEqual(set(rows), {(1, "decode"), (1, "cuda"), (2, "decode"), (2, "cuda")})
        self.assertAlmostEqual(rows[(1, "decode")]["fps"], 1050.0)  # the median of three
        self.assertAlmostEqual(rows[(1, "cuda")]["fps"], 980.0)
        self.assertAlmostEqual(rows[(1, "cuda")]["of_decode"], 980.0 / 1050.0)
        self.assertNotIn("of_decode", rows[(1, "decode")])
        self.assertNotIn("scaling", rows[(1, "cuda")])
        self.assertAlmostEqual(rows[(2, "cuda")]["scaling"], 1960.0 / 980.0)
        self.assertAlmostEqual(rows[(2, "cuda")]["of_decode"], 0.98)
        table = mb.markdown(mb.summarise(runs), {("1080p", 2, 8, "cuda"): "0: 40/90, 1: 41/89"})
        self.assertIn("| 1080p | 2 | 8 | filtered, CUDA memory out | 1960 | 0.980 | 2.00 | 0: 40/90, 1: 41/89 |", table)

    def test_bad_arguments_are_refused_before_any_run(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(SystemExit) as e:
                mb.main(["--clip", "x=" + os.path.join(d, "missing.mp4"), "--out-dir", d])
            self.assertEqual(e.exception.code, 2)
            clip = os.path.join(d, "c.mp4")
            open(clip, "wb").close()
            with self.assertRaises(SystemExit) as e:
                mb.main(["--clip", "x=" + clip, "--modes", "decode,nosuch", "--frames", "10", "--out-dir", d])
            self.assertEqual(e.exception.code, 2)


if __name__ == "__main__":
    unittest.main()
