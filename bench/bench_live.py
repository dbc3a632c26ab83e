"""The live loop on the demo feed paced at 30 frames/s: flip-to-ruling latency and CPU use.

    .venv/bin/python bench/bench_live.py [--battles 20] [--seed 1] [--fps 30]

The demo's rendered table (web/demo.py) plays as a camera would: a ListSource paced at --fps, read by
a WatchedSource thread; the loop takes the newest frame each time (what a real camera gives), so a
loop that cannot keep up drops frames rather than falling behind. Reported: flip-to-ruling latency
(from the first frame showing a battle's last card to its ruling) p50/p95, frames captured and
processed, dropped frames (captured but never processed, a newer one taken instead), frames whose
reads were kept (picture unchanged since the last frame read: web/live.py), the time the loop
spent on a frame it took (reading, tracking, the glue; p50/p95/max: a frame over 2/fps costs the
frame after it), and CPU use (process CPU time / wall time; 1.0 = one core busy).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from web.demo import _pct, make_live  # noqa: E402
from web.keeper import GameKeeper  # noqa: E402
from web.store import Store  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--battles", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    # hold 15 frames a step at 30 fps (half a second, like the browser demo's 5 frames at 10 fps)
    hold = max(3, round(args.fps / 2))
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        keeper = GameKeeper(Store(db), time.time)
        table, live = make_live(db, ["Alex", "Olivia"], args.seed, args.battles, fps=args.fps, hold=hold)
        table.patience = int(args.fps * 3)
        live.attach(keeper)
        live.camera.start()
        wall0, cpu0 = time.perf_counter(), time.process_time()
        processed = 0
        spent: list[float] = []        # ms the loop spent on each frame it took: reading, tracking, the glue
        read, apply, began = live.read, live.apply, [0.0]

        def timed_read(image):
            began[0] = time.perf_counter()
            return read(image)

        def timed_apply(frame, reads):
            out = apply(frame, reads)
            spent.append((time.perf_counter() - began[0]) * 1000)
            return out
        live.read, live.apply = timed_read, timed_apply
        while not table.done and time.perf_counter() - wall0 < 600:
            if live.step() is not None:
                processed += 1
            if table.glue is None:
                table.glue = live.glue
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        live.camera.close()
        summary = table.summary(wall, cpu)
    captured = summary["frames"]
    spent.sort()
    out = {"fps_target": args.fps, "battles": summary["battles"], "wrong_rulings": summary["wrong_rulings"],
           "reasks": summary["reasks"], "latency_ms": summary["latency_ms"],
           "frames_captured": captured, "frames_processed": processed,
           "dropped_frames": max(0, captured - processed), "kept_frames": live.kept,
           "frame_ms": {"p50": _pct(spent, 50), "p95": _pct(spent, 95), "max": round(spent[-1], 1) if spent else None},
           "processed_fps": round(processed / wall, 1), "cpu_per_wall": round(cpu / wall, 2),
           "wall_s": round(wall, 1)}
    if args.json:
        print(json.dumps(out))
        return
    print(f"live loop at {args.fps:g} frames/s, {out['battles']} battles ({out['wrong_rulings']} wrong rulings, "
          f"{out['reasks']} re-asks), {out['wall_s']} s")
    print(f"  flip-to-ruling latency: p50 {out['latency_ms']['p50']} ms, p95 {out['latency_ms']['p95']} ms "
          f"({out['latency_ms']['n']} battles)")
    print(f"  frames: {captured} captured, {processed} processed ({out['processed_fps']}/s), "
          f"{out['dropped_frames']} dropped, {out['kept_frames']} kept the reads of an unchanged picture")
    print(f"  loop time per frame: p50 {out['frame_ms']['p50']} ms, p95 {out['frame_ms']['p95']} ms, "
          f"max {out['frame_ms']['max']} ms (1/fps = {1000 / args.fps:.1f} ms)")
    print(f"  CPU: {out['cpu_per_wall']} of a core (process CPU time / wall time)")


if __name__ == "__main__":
    main()
