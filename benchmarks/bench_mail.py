"""Mail ingestion throughput: ``ingest_mail`` against a plain stdlib ``email`` loop.

Generates a CMU-layout maildir (``custodian/folder/1.``) of N small messages (replies
with quoted history, Lotus forwards, cp1252 bodies, a few attachments, duplicates),
then in two fresh subprocesses over the same files:

1. the plain loop: open each file, ``email.message_from_binary_file(fh,
   policy=policy.default)``, read the body (``get_body().get_content()``);
2. ``ingest_mail`` (discovery, parsing, new text, blobs, dedupe, frames), with its
   default worker pool, and again in one process (for the per-core comparison).

Prints messages/s of both, the ratio (target >= 0.8x) and the peak RSS of the
``ingest_mail`` process tree (target <= 1 GB; ``ru_maxrss`` of the process and of its
largest worker).

    python -m benchmarks mail
    python benchmarks/bench_mail.py --messages 50000
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
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
    """Write ``n`` messages (and every 20th again in another folder); return the file count.

    Raw RFC 5322 bytes from templates (the email package's generator would take longer
    than the benchmark itself).
    """
    rng = random.Random(seed)
    people = [f"person{i}@enron.com" for i in range(400)]
    start = datetime(2001, 1, 1, tzinfo=UTC)
    counters: dict[Path, int] = {}
    for i in range(n):
        custodian = f"custodian-{i % 50:02d}"
        folder = root / custodian / rng.choice(FOLDERS)
        sender, *rcpts = rng.sample(people, 4)
        text = "\n".join(_sentence(rng, rng.randint(8, 20)) for _ in range(rng.randint(1, 4)))
        headers = [
            f"From: Person {sender.split('@')[0]} <{sender}>",
            f"To: {rcpts[0]}, {rcpts[1]}",
            f"Cc: {rcpts[2]}",
            f"Date: {format_datetime(start + timedelta(minutes=37 * i))}",
            f"Message-ID: <{i}.{seed}@bench.example>",
        ]
        kind = i % 10
        if kind < 4 and i > 50:
            parent = f"<{i - rng.randint(1, 50)}.{seed}@bench.example>"
            headers += [f"Subject: RE: Deal {i % 97}", f"In-Reply-To: {parent}"]
            headers.append(f"References: {parent}")
            text += (
                "\n\nThanks,\nPerson\n\n -----Original Message-----\nFrom: \tSomeone\n"
                "Sent:\tMonday, January 1, 2001 10:00 AM\nTo:\tPerson\nSubject:\tDeal\n\n"
                f"{_sentence(rng, 15)}\n"
            )
        elif kind == 4:
            headers.append(f"Subject: FW: Report {i % 31}")
            text += (
                "\n---------------------- Forwarded by Person/HOU/ECT on 01/02/2001 09:56 AM"
                f" ---------------------------\n\n{_sentence(rng, 12)}\n"
            )
        else:
            headers.append(f"Subject: Deal {i % 97} schedule")
        charset = "us-ascii"
        if kind == 5:
            text += "\nCaf\xe9 cr\xe8me \u2013 r\xe9sum\xe9"
            charset = "windows-1252"
        body = text.encode(charset).replace(b"\n", b"\r\n")
        head = "\r\n".join(headers + ["MIME-Version: 1.0"]).encode()
        if i % 50 == 7:
            attachment = base64.encodebytes(rng.randbytes(2048))
            data = head + (
                b'\r\nContent-Type: multipart/mixed; boundary="b1"\r\n\r\n--b1\r\n'
                b"Content-Type: text/plain; charset=" + charset.encode() + b"\r\n"
                b"Content-Transfer-Encoding: 8bit\r\n\r\n" + body + b"\r\n--b1\r\n"
                b"Content-Type: application/vnd.ms-excel\r\nContent-Transfer-Encoding: base64\r\n"
                b'Content-Disposition: attachment; filename="schedule ' + str(i % 13).encode()
                + b'.xls"\r\n\r\n' + attachment + b"--b1--\r\n"
            )  # fmt: skip
        else:
            data = head + (
                b"\r\nContent-Type: text/plain; charset=" + charset.encode()
                + b"\r\nContent-Transfer-Encoding: 8bit\r\n\r\n" + body + b"\r\n"
            )  # fmt: skip
        for where in [folder] + ([root / custodian / "all_documents"] if i % 20 == 3 else []):
            counters[where] = counters.get(where, 0) + 1
            where.mkdir(parents=True, exist_ok=True)
            (where / f"{counters[where]}.").write_bytes(data)
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
        single = _run_child("ingest", root, 1)
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
    single_rate = single["messages"] / single["seconds"]
    print(
        f"  ingest_mail, 1 process: {single_rate:,.0f} msg/s ({single['seconds']:.1f} s), "
        f"{single_rate / plain_rate:.2f}x the stdlib loop"
    )
    print(
        f"  ratio {ratio:.2f}x (target >= {TARGET_RATIO}x); peak RSS {peak:.2f} GB "
        f"(main {ours['rss_self_gb']:.2f} GB, largest worker {ours['rss_worker_gb']:.2f} GB; "
        f"target <= {TARGET_RSS_GB} GB)"
    )
    return {
        "ratio": ratio,
        "plain_rate": plain_rate,
        "rate": our_rate,
        "single_process_ratio": single_rate / plain_rate,
        "peak_rss_gb": peak,
    }


if __name__ == "__main__":
    main()
