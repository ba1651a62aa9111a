//! Where load+emit's time goes: best-of-N of a bare word walk (the floor), `load_words`,
//! `to_words` and dropping the module, on one module.
//! `cargo run --release -p spvopt-ir --example bench_load -- MODULE.spv [REPS]`

use std::hint::black_box;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("usage: bench_load MODULE.spv [REPS]");
    let reps: usize = args
        .get(2)
        .map_or(1000, |r| r.parse().expect("REPS is a number"));
    let bytes = std::fs::read(path).expect("reading the module");
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut best = [Duration::MAX; 4];
    for _ in 0..reps {
        let t = Instant::now();
        let (mut pos, mut n) = (5, 0u32);
        while pos < words.len() {
            n = n.wrapping_add(words[pos] & 0xffff);
            pos += ((words[pos] >> 16) as usize).max(1);
        }
        black_box(n);
        best[0] = best[0].min(t.elapsed());
        let t = Instant::now();
        let m = spvopt_ir::load_words(black_box(&words)).expect("the module loads");
        best[1] = best[1].min(t.elapsed());
        let t = Instant::now();
        let out = m.to_words();
        best[2] = best[2].min(t.elapsed());
        let t = Instant::now();
        drop(black_box(m));
        drop(black_box(out));
        best[3] = best[3].min(t.elapsed());
    }
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "{} words: walk {:.1} us, load {:.1} us, emit {:.1} us, drop {:.1} us",
        words.len(),
        us(best[0]),
        us(best[1]),
        us(best[2]),
        us(best[3])
    );
}
