//! Storage benchmarks (`cargo bench -p kafka-sim --bench storage`):
//! * append throughput with 1 KiB records, beside a plain memcpy of the same
//!   bytes in the same run;
//! * offset lookups on a 1,000,000-record log over many segments: the
//!   traced walk (the lookup command, the storage view), the untraced path
//!   the simulation's fetches take, and a linear scan from the start;
//! * memory per payload byte of the paged store (printed).

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use kafka_sim::config::LogConfig;
use kafka_sim::ids::TopicPartition;
use kafka_sim::storage::log::Log;
use kafka_sim::storage::paged::MemStorage;
use kafka_sim::storage::record::{build_batch, BatchSpec, NewRecord};
use std::sync::Arc;

fn batches(n: usize, per_batch: usize, value_len: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| {
            let recs: Vec<NewRecord> = (0..per_batch)
                .map(|j| {
                    let key = format!("key-{i}-{j}");
                    NewRecord::new(
                        Some(key.as_bytes()),
                        Some(&vec![b'v'; value_len]),
                        1_700_000_000_000 + i as i64,
                    )
                })
                .collect();
            build_batch(&BatchSpec::default(), &recs)
        })
        .collect()
}

fn append_all(batches: Vec<Vec<u8>>, segment_bytes: u64) -> (MemStorage, Log) {
    let mut s = MemStorage::default();
    let cfg = Arc::new(LogConfig {
        segment_bytes,
        ..LogConfig::default()
    });
    let mut log = Log::create(&mut s, TopicPartition::new("bench", 0), cfg, 0).unwrap();
    for b in batches {
        let p = log.prepare_leader_append(b, 0, 0).unwrap();
        log.roll_and_append(&mut s, &p, 0).unwrap();
    }
    (s, log)
}

fn bench(c: &mut Criterion) {
    // 1. Append: 4,000 batches of 16 records with 1 KiB values (~66 MB).
    let input = batches(4000, 16, 1024);
    let total: usize = input.iter().map(|b| b.len()).sum();
    let mut g = c.benchmark_group("append 1 KiB records");
    g.throughput(Throughput::Bytes(total as u64));
    g.sample_size(10);
    g.bench_function(
        "Log::append (validate CRC, assign offsets, paged write, index)",
        |b| {
            b.iter_batched(
                || input.clone(),
                |bs| black_box(append_all(bs, 1 << 30).1.log_end_offset),
                BatchSize::LargeInput,
            )
        },
    );
    g.bench_function("memcpy of the same bytes", |b| {
        // The destination is written once beforehand so the timed copy does
        // not pay for first-touch page faults.
        b.iter_batched(
            || (input.clone(), vec![1u8; total]),
            |(bs, mut dst)| {
                let mut at = 0;
                for x in &bs {
                    dst[at..at + x.len()].copy_from_slice(x);
                    at += x.len();
                }
                black_box(dst[at - 1])
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();

    // 2. Lookups: 1,000,000 records (100,000 batches of 10, 100-byte values)
    //    in 1 MiB segments with the default 4 KiB index interval.
    let (store, log) = append_all(batches(100_000, 10, 100), 1 << 20);
    let payload: u64 = log.size();
    eprintln!(
        "lookup log: {} records, {} segments, {} index entries, {} bytes of .log",
        log.log_end_offset,
        log.segments.len(),
        log.segments.iter().map(|s| s.index_entries).sum::<u64>(),
        payload
    );
    eprintln!(
        "paged store: {} bytes allocated for {} bytes of content ({:.4} bytes per content byte)",
        store.allocated_bytes(),
        store.content_bytes(),
        store.allocated_bytes() as f64 / store.content_bytes() as f64
    );
    let mut g = c.benchmark_group("offset lookup, 1M records");
    let mut x: u64 = 99;
    let mut next = move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((x >> 33) % 1_000_000) as i64
    };
    g.bench_function(
        "segment search + index binary search + scan (traced)",
        |b| b.iter(|| black_box(log.lookup_offset(&store, next()).result)),
    );
    g.bench_function("untraced (the simulation's own reads: Log::locate)", |b| {
        b.iter(|| black_box(log.locate(&store, next())))
    });
    g.bench_function("fetch read of one batch (Log::read, untraced)", |b| {
        b.iter(|| {
            black_box(
                log.read(&store, next(), 1, i64::MAX, true)
                    .map(|d| d.bytes.len()),
            )
        })
    });
    g.sample_size(10);
    g.bench_function("linear scan from the first batch", |b| {
        b.iter(|| {
            let target = next();
            for seg in &log.segments {
                if seg.next_offset <= target {
                    // A linear scan still has to read each batch header.
                    let mut pos = 0;
                    while pos < seg.size {
                        let h = log.header_at(&store, seg.base_offset, pos).unwrap();
                        pos += h.size_in_bytes();
                    }
                    continue;
                }
                let mut pos = 0;
                loop {
                    let h = log.header_at(&store, seg.base_offset, pos).unwrap();
                    if h.last_offset() >= target {
                        return black_box((h.base_offset, pos));
                    }
                    pos += h.size_in_bytes();
                }
            }
            black_box((-1, 0))
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
