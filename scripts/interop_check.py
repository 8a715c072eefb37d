#!/usr/bin/env python3
"""Interop check: kafka-python (an independent implementation of Kafka's
protocol) decodes the .log files `kafka-sim segments` writes, validating each
batch's CRC-32C. Usage: interop_check.py DIR EXPECTED_RECORDS"""
import glob, sys
from kafka.record.memory_records import MemoryRecords

d, expected = sys.argv[1], int(sys.argv[2])
n = 0
last = -1
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
            n += 1
if n != expected:
    sys.exit(f"{d}: kafka-python read {n} records, expected {expected}")
print(f"kafka-python decoded {n} records from {d} with valid CRCs")
