pub mod bench_gen;
