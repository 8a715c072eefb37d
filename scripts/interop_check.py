#!/usr/bin/env python3
"""Interop check: kafka-python (an independent implementation of Kafka's
protocol) decodes the .log files `kafka-sim segments` writes, validating each
batch's CRC-32C. Usage:

  interop_check.py DIR EXPECTED_RECORDS
  interop_check.py DIR EXPECTED_RECORDS --txn MARKERS ABORTED_TXNS COMMITTED

With --txn it also checks the transaction markers (control batches, read by
kafka-python as ControlRecord) and the .txnindex files, read here with their
34-byte layout (version int16, producerId, firstOffset, lastOffset,
lastStableOffset int64), derives each entry from the markers and records,
and counts what a read_committed consumer keeps:
every data record except those of an aborted transaction (the records of
producerId between firstOffset and lastOffset), and no control record."""
import glob, struct, sys
from kafka.record.memory_records import MemoryRecords

d, expected = sys.argv[1], int(sys.argv[2])
txn = sys.argv[3:4] == ["--txn"]
n = 0
last = -1
data = []      # (offset, producer_id, transactional)
markers = {}   # offset -> (producer_id, "abort" | "commit")
for f in sorted(glob.glob(d + "/*.log")):
    mr = MemoryRecords(open(f, "rb").read())
    while mr.has_next():
        b = mr.next_batch()
        if not b.validate_crc():
            sys.exit(f"{f}: batch at offset {b.base_offset}: CRC-32C does not validate")
        for r in b:
            if r.offset <= last:
                sys.exit(f"{f}: offsets go backwards at {r.offset}")
            last = r.offset
            if b.is_control_batch:
                if not b.is_transactional:
                    sys.exit(f"{f}: control batch at {r.offset} is not transactional")
                if r.version != 0 or r.type not in (0, 1):
                    sys.exit(f"{f}: marker at {r.offset}: version {r.version} type {r.type}")
                markers[r.offset] = (b.producer_id, "abort" if r.abort else "commit")
            else:
                data.append((r.offset, b.producer_id, b.is_transactional))
            n += 1
if n != expected:
    sys.exit(f"{d}: kafka-python read {n} records, expected {expected}")
if not txn:
    print(f"kafka-python decoded {n} records from {d} with valid CRCs")
    sys.exit(0)

want_markers, want_aborted, want_committed = map(int, sys.argv[4:7])
entries = []
for f in sorted(glob.glob(d + "/*.txnindex")):
    raw = open(f, "rb").read()
    if len(raw) % 34:
        sys.exit(f"{f}: {len(raw)} bytes is not a whole number of 34-byte entries")
    for i in range(0, len(raw), 34):
        version, pid, first, last_off, lso = struct.unpack(">hqqqq", raw[i:i + 34])
        if version != 0:
            sys.exit(f"{f}: entry {i // 34}: version {version}")
        entries.append((pid, first, last_off, lso))
# Each entry must name an ABORT marker of its producer, and its first offset
# must be that producer's first transactional record after its last marker.
for pid, first, last_off, lso in entries:
    if markers.get(last_off) != (pid, "abort"):
        sys.exit(f".txnindex entry {pid}/{first}-{last_off}: no ABORT marker of producer {pid} at {last_off}")
    before = [o for o, (p, _) in markers.items() if p == pid and o < last_off]
    start = max(before, default=-1)
    own = [o for o, p, t in data if p == pid and t and start < o < last_off]
    if not own or own[0] != first:
        sys.exit(f".txnindex entry {pid}/{first}-{last_off}: the transaction's first record is {own[:1]}")
    # lastStableOffset: the first record of another producer's transaction
    # still open at the marker, else the marker's offset + 1.
    open_firsts = []
    for q in {p for _, p, t in data if t and p != pid}:
        q_start = max((o for o, (p, _) in markers.items() if p == q and o < last_off), default=-1)
        q_open = [o for o, p, t in data if p == q and t and q_start < o < last_off]
        if q_open:
            open_firsts.append(q_open[0])
    want_lso = min(open_firsts, default=last_off + 1)
    if lso != want_lso:
        sys.exit(f".txnindex entry {pid}/{first}-{last_off}: lastStableOffset {lso}, expected {want_lso}")
aborts = sum(1 for _, k in markers.values() if k == "abort")
if len(entries) != aborts:
    sys.exit(f"{len(entries)} .txnindex entries for {aborts} ABORT markers")
committed = sum(1 for o, p, _ in data
                if not any(p == ep and ef <= o <= el for ep, ef, el, _ in entries))
got = (len(markers), len(entries), committed)
if got != (want_markers, want_aborted, want_committed):
    sys.exit(f"{d}: markers, aborted transactions, committed records = {got}, expected "
             f"{(want_markers, want_aborted, want_committed)}")
print(f"kafka-python decoded {n} records from {d} with valid CRCs: {len(markers)} markers, "
      f"{len(entries)} aborted transactions in .txnindex, {committed} records a read_committed consumer keeps")
