//! The generator's output frozen: an FNV-1a digest of the words, launches and summaries of
//! 3,000 kernels (seeds and truncated choice streams). Kernels feed the differential test, the
//! fuzz corpus and benchmarks, so a change of the writer must not change one byte; a change of
//! the generator's choices changes the digest on purpose (update [`GOLDEN`] then).
//! `KERNELGEN_DUMP=FILE` also writes every kernel's words to FILE, for a byte comparison.

use std::io::Write;

/// The digest of [`digest_all`] for the generator as it is.
const GOLDEN: u64 = 0x0e69_30dd_9b0e_17df;

fn fnv(h: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *h ^= u64::from(b);
        *h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
}

/// Every kernel the digest covers: seeds 0..2000, then the first 1,000 seeds' streams cut
/// short (exhausted streams take the smallest choices).
fn inputs() -> impl Iterator<Item = Vec<u8>> {
    let seeds = (0..2000u64).map(crate::seed_bytes);
    let cut = (0..1000u64).map(|s| {
        let mut b = crate::seed_bytes(s);
        b.truncate((s as usize * 7) % 1024);
        b
    });
    seeds.chain(cut)
}

fn digest_all(mut dump: Option<&mut dyn Write>) -> u64 {
    let mut h = 0xCBF2_9CE4_8422_2325u64;
    for input in inputs() {
        let k = crate::generate(&input);
        let bytes: Vec<u8> = k.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        fnv(&mut h, &(bytes.len() as u64).to_le_bytes());
        fnv(&mut h, &bytes);
        if let Some(d) = dump.as_deref_mut() {
            d.write_all(&bytes).expect("writing the dump");
        }
        fnv(&mut h, format!("{:?}", k.launch).as_bytes());
        fnv(&mut h, format!("{:?}", k.summary).as_bytes());
    }
    h
}

#[test]
fn generated_kernels_are_unchanged() {
    let mut file = std::env::var_os("KERNELGEN_DUMP")
        .map(|p| std::io::BufWriter::new(std::fs::File::create(p).expect("dump file")));
    let got = digest_all(file.as_mut().map(|f| f as &mut dyn Write));
    assert_eq!(
        got, GOLDEN,
        "kernelgen's output changed (digest {got:#018x}); if on purpose, update GOLDEN"
    );
}
