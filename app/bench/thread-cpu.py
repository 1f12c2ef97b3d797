#!/usr/bin/env python3
"""CPU time of each thread of a running command, over a window of its run (Linux /proc).

Runs the command, reads /proc/PID/task/*/stat at START and END seconds after it started, and
prints one JSON line: each thread's name, CPU milliseconds in the window (user + system), its
share of the window, the CPU it last ran on, its context switches (voluntary: it waited;
involuntary: it was preempted) and migrations between CPUs in the window, the command's wall time,
exit code and last output lines.
Threads that started or ended inside the window count from their first or to their last reading.
Where perf cannot read hardware counters (a virtual machine), this is what tells a decoder thread that
slows down from one that waits.

  app/bench/thread-cpu.py --window 1.5:4.5 -- build/convlive run --input clip.mp4 --frames 900
"""
import argparse, json, os, subprocess, sys, tempfile, time

TICK = os.sysconf("SC_CLK_TCK")


def counters(pid, tid):
    """A thread's (voluntary, involuntary) context switches and migrations between CPUs so far."""
    vol = invol = mig = 0
    try:
        for line in open(f"/proc/{pid}/task/{tid}/status"):
            if line.startswith("voluntary_ctxt_switches:"):
                vol = int(line.split()[1])
            elif line.startswith("nonvoluntary_ctxt_switches:"):
                invol = int(line.split()[1])
        for line in open(f"/proc/{pid}/task/{tid}/sched"):
            if line.startswith("se.nr_migrations"):
                mig = int(line.split(":")[1])
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    return vol, invol, mig


def threads(pid):
    """tid -> (name, cpu seconds, last cpu, counters) for every thread of pid now."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return out
    for tid in tids:
        try:
            text = open(f"/proc/{pid}/task/{tid}/stat").read()
        except (FileNotFoundError, ProcessLookupError):
            continue
        # The name is in parentheses and may hold spaces: split after the last ')'.
        name = text[text.index("(") + 1:text.rindex(")")]
        f = text[text.rindex(")") + 2:].split()
        out[int(tid)] = (name, (int(f[11]) + int(f[12])) / TICK, int(f[36]), counters(pid, tid))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--window", default="1.5:4.5", help="START:END seconds after the command starts")
    ap.add_argument("--label", default="", help="a name for this run in the output")
    ap.add_argument("cmd", nargs=argparse.REMAINDER, help="-- then the command")
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        ap.error("no command: give it after --")
    try:
        start, end = (float(x) for x in a.window.split(":"))
    except ValueError:
        ap.error(f"--window '{a.window}' is not START:END in seconds")
    if not 0 <= start < end:
        ap.error(f"--window '{a.window}': START must be at least 0 and below END")

    # The command's output goes to a file, not a pipe: a pipe nobody reads until the end would
    # stall a command that prints more than the pipe holds, and make its threads look idle.
    log = tempfile.TemporaryFile(mode="w+")
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, text=True)
    time.sleep(start)
    first, t1 = threads(p.pid), time.monotonic()
    time.sleep(max(0.0, end - (t1 - t0)))
    last, t2 = threads(p.pid), time.monotonic()
    p.wait()
    wall = time.monotonic() - t0
    log.seek(0)
    out = log.read()
    window = t2 - t1
    rows = []
    for tid in sorted(set(first) | set(last)):
        name, c1, cpu, n1 = last.get(tid, first.get(tid))
        _, c0, _, n0 = first.get(tid, (name, 0.0, cpu, (0, 0, 0)))
        if tid not in last:  # ended inside the window: its last reading is the first
            c1, n1 = c0, n0
        rows.append({"tid": tid, "name": name, "cpu_ms": round(1000 * (c1 - c0), 1),
                     "share": round((c1 - c0) / window, 3) if window > 0 else None, "last_cpu": cpu,
                     "voluntary_switches": n1[0] - n0[0], "involuntary_switches": n1[1] - n0[1],
                     "migrations": n1[2] - n0[2]})
    rows.sort(key=lambda r: -r["cpu_ms"])
    json.dump({"label": a.label, "window_s": round(window, 3), "wall_s": round(wall, 3),
               "complete": bool(first and last),
               "rc": p.returncode, "threads": rows, "total_cpu_ms": round(sum(r["cpu_ms"] for r in rows), 1),
               "tail": out.strip().splitlines()[-6:]}, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
