"""Mail ingestion throughput: ``ingest_mail`` against a plain stdlib ``email`` loop.

Generates a CMU-layout maildir (``custodian/folder/1.``) of N small messages (replies
with quoted history, Lotus forwards, cp1252 bodies, a few attachments, duplicates),
then in two fresh subprocesses over the same files:

1. the plain loop: open each file, ``email.message_from_binary_file(fh,
   policy=policy.default)``, read the body (``get_body().get_content()``);
2. ``ingest_mail`` (discovery, parsing, new text, blobs, dedupe, frames).

Prints messages/s of both, the ratio (target >= 0.8x) and the peak RSS of the
``ingest_mail`` process tree (target <= 1 GB; ``ru_maxrss`` of the process and of its
largest worker).

    python -m benchmarks mail
    python benchmarks/bench_mail.py --messages 50000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET_RATIO = 0.8
TARGET_RSS_GB = 1.0
FOLDERS = ("inbox", "sent_items", "deleted_items", "all_documents")
WORDS = (
    "please review the attached schedule and confirm the volumes for next month "
    "the counterparty has asked for an updated credit worksheet before friday "
    "we need to reconcile the invoice totals with the deal ticket numbers"
).split()


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def generate(root: Path, n: int, seed: int = 0) -> int:
    """Write ``n`` message files under ``root``; return the number written."""
    rng = random.Random(seed)
    people = [f"person{i}@enron.com" for i in range(400)]
    start = datetime(2001, 1, 1, tzinfo=UTC)
    counters: dict[Path, int] = {}
    prev_ids: list[str] = []
    for i in range(n):
        custodian = f"custodian-{i % 50:02d}"
        folder = root / custodian / rng.choice(FOLDERS)
        msg = EmailMessage()
        sender, *rcpts = rng.sample(people, 4)
        msg["From"] = f"Person {sender.split('@')[0]} <{sender}>"
        msg["To"] = ", ".join(rcpts[:2])
        msg["Cc"] = rcpts[2]
        msg["Date"] = format_datetime(start + timedelta(minutes=37 * i))
        msg["Message-ID"] = f"<{i}.{seed}@bench.example>"
        text = "\n".join(_sentence(rng, rng.randint(8, 20)) for _ in range(rng.randint(1, 4)))
        kind = i % 10
        if kind < 4 and prev_ids:
            parent = rng.choice(prev_ids[-50:])
            msg["Subject"] = f"RE: Deal {i % 97}"
            msg["In-Reply-To"] = parent
            msg["References"] = parent
            text += (
                f"\n\nThanks,\nPerson\n\n -----Original Message-----\nFrom: \tSomeone\n"
                f"Sent:\tMonday, January 1, 2001 10:00 AM\nTo:\tPerson\nSubject:\tDeal\n\n"
                f"{_sentence(rng, 15)}\n"
            )
        elif kind == 4:
            msg["Subject"] = f"FW: Report {i % 31}"
            text += (
                "\n---------------------- Forwarded by Person/HOU/ECT on 01/02/2001 09:56 AM"
                f" ---------------------------\n\n{_sentence(rng, 12)}\n"
            )
        else:
            msg["Subject"] = f"Deal {i % 97} schedule"
        if kind == 5:
            msg.set_content(text + "\nCaf\xe9 cr\xe8me \u2013 r\xe9sum\xe9", charset="cp1252")
        else:
            msg.set_content(text)
        if i % 50 == 7:
            msg.add_attachment(
                rng.randbytes(2048),
                maintype="application",
                subtype="vnd.ms-excel",
                filename=f"schedule {i % 13}.xls",
            )
        data = bytes(msg)
        counters[folder] = counters.get(folder, 0) + 1
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{counters[folder]}.").write_bytes(data)
        prev_ids.append(msg["Message-ID"])
        if i % 20 == 3:  # the same message filed again in another folder
            other = root / custodian / "all_documents"
            counters[other] = counters.get(other, 0) + 1
            other.mkdir(parents=True, exist_ok=True)
            (other / f"{counters[other]}.").write_bytes(data)
    return sum(counters.values())


def _child_stdlib(root: Path) -> dict:
    import email
    from email import policy

    files = sorted(p for p in root.rglob("*") if p.is_file())
    t0 = time.perf_counter()
    chars = 0
    for path in files:
        with open(path, "rb") as fh:
            msg = email.message_from_binary_file(fh, policy=policy.default)
        body = msg.get_body(preferencelist=("plain", "html"))
        chars += len(body.get_content()) if body is not None else 0
    return {"files": len(files), "messages": len(files), "seconds": time.perf_counter() - t0}


def _child_ingest(root: Path, workers: int | None) -> dict:
    from pipeline.ingest.mail import ingest_mail
    from pipeline.store import BlobStore

    with tempfile.TemporaryDirectory() as blobs:
        t0 = time.perf_counter()
        result = ingest_mail([("bench", root)], BlobStore(blobs), workers=workers)
        seconds = time.perf_counter() - t0
    rss_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    rss_child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
    return {
        "files": result.intake.discovered,
        "messages": len(result.intake.ingested),
        "unique": result.messages.height,
        "attachments": result.attachments.height,
        "quarantined": len(result.intake.quarantined),
        "seconds": seconds,
        "rss_self_gb": rss_self,
        "rss_worker_gb": rss_child,
    }


def _run_child(kind: str, root: Path, workers: int | None) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", kind, "--root", str(root)]
    if workers:
        cmd += ["--workers", str(workers)]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = subprocess.run(cmd, env=env, cwd=REPO, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=50_000)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--child", choices=("stdlib", "ingest"), default=None)
    parser.add_argument("--root", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.child:
        fn = _child_stdlib if args.child == "stdlib" else _child_ingest
        report = fn(args.root) if args.child == "stdlib" else fn(args.root, args.workers)
        print(json.dumps(report))
        return report
    with tempfile.TemporaryDirectory(prefix="bench-mail-") as tmp:
        root = Path(tmp) / "maildir"
        t0 = time.perf_counter()
        n_files = generate(root, args.messages, args.seed)
        gen_s = time.perf_counter() - t0
        plain = _run_child("stdlib", root, None)
        ours = _run_child("ingest", root, args.workers)
    plain_rate = plain["messages"] / plain["seconds"]
    our_rate = ours["messages"] / ours["seconds"]
    ratio = our_rate / plain_rate
    peak = max(ours["rss_self_gb"], ours["rss_worker_gb"])
    print(
        f"mail: {n_files:,} message files ({args.messages:,} messages + duplicates) "
        f"generated in {gen_s:.1f} s; workers={args.workers or os.cpu_count()}"
    )
    print(f"  stdlib email loop : {plain_rate:,.0f} msg/s ({plain['seconds']:.1f} s)")
    print(
        f"  ingest_mail       : {our_rate:,.0f} msg/s ({ours['seconds']:.1f} s), "
        f"{ours['unique']:,} unique messages, {ours['attachments']:,} attachments, "
        f"{ours['quarantined']} quarantined"
    )
    print(
        f"  ratio {ratio:.2f}x (target >= {TARGET_RATIO}x); peak RSS {peak:.2f} GB "
        f"(main {ours['rss_self_gb']:.2f} GB, largest worker {ours['rss_worker_gb']:.2f} GB; "
        f"target <= {TARGET_RSS_GB} GB)"
    )
    return {"ratio": ratio, "plain_rate": plain_rate, "rate": our_rate, "peak_rss_gb": peak}


if __name__ == "__main__":
    main()
