//! Every C function with out-parameters sets them to null on every error (issue 42), so a
//! client that destroys what it got back after any call never frees a stale pointer.

use std::ffi::CString;
use std::ptr;

use spvopt::*;

/// A non-null value no call may leave behind (never dereferenced or freed).
fn stale<T>() -> *mut T {
    ptr::NonNull::dangling().as_ptr()
}

#[test]
fn create_nulls_its_out_parameter_on_error() {
    let mut opt: *mut SpvoptOptimizer = stale();
    let bad = CString::new("no-such-target").unwrap();
    // SAFETY: valid arguments per the contract.
    let r = unsafe { spvopt_optimizer_create(bad.as_ptr(), &mut opt) };
    assert_eq!(r, SpvoptResult::SPVOPT_ERROR_INVALID_ARGUMENT);
    assert!(opt.is_null());
    // A target name that is not UTF-8.
    let mut opt: *mut SpvoptOptimizer = stale();
    let bytes = CString::new(vec![0xffu8, 0xfe]).unwrap();
    // SAFETY: as above.
    let r = unsafe { spvopt_optimizer_create(bytes.as_ptr(), &mut opt) };
    assert_ne!(r, SpvoptResult::SPVOPT_SUCCESS);
    assert!(opt.is_null());
}

#[test]
fn run_nulls_its_out_parameters_on_every_error() {
    let mut opt: *mut SpvoptOptimizer = ptr::null_mut();
    let pvc = CString::new("pvc").unwrap();
    let o_flag = CString::new("-O").unwrap();
    // SAFETY: valid arguments per the contract.
    unsafe {
        assert_eq!(
            spvopt_optimizer_create(pvc.as_ptr(), &mut opt),
            SpvoptResult::SPVOPT_SUCCESS
        );
        assert_eq!(
            spvopt_optimizer_register_pass_from_flag(opt, o_flag.as_ptr()),
            SpvoptResult::SPVOPT_SUCCESS
        );
    }
    // Random words (a fixed xorshift sequence), a bad magic number, an empty module.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let random: Vec<u32> = (0..256)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u32
        })
        .collect();
    let inputs: [&[u32]; 3] = [&random, &[0x1234_5678, 0, 0, 0, 0], &[]];
    for words in inputs {
        let mut out: *mut SpvoptBinary = stale();
        let mut stats: *mut std::ffi::c_char = stale();
        // SAFETY: `words` is readable, both out-parameters writable.
        let r =
            unsafe { spvopt_optimizer_run(opt, words.as_ptr(), words.len(), &mut out, &mut stats) };
        assert_ne!(r, SpvoptResult::SPVOPT_SUCCESS, "{} words", words.len());
        assert!(out.is_null() && stats.is_null(), "{r:?}");
    }
    // A null optimizer and null words: still nulled.
    let mut out: *mut SpvoptBinary = stale();
    let mut stats: *mut std::ffi::c_char = stale();
    // SAFETY: null optimizer and words are rejected; the out-parameters are writable.
    let r = unsafe { spvopt_optimizer_run(ptr::null(), ptr::null(), 0, &mut out, &mut stats) };
    assert_eq!(r, SpvoptResult::SPVOPT_ERROR_INVALID_ARGUMENT);
    assert!(out.is_null() && stats.is_null());
    let mut out: *mut SpvoptBinary = stale();
    // SAFETY: as above.
    let r = unsafe { spvopt_optimizer_run(opt, ptr::null(), 0, &mut out, ptr::null_mut()) };
    assert_eq!(r, SpvoptResult::SPVOPT_ERROR_INVALID_ARGUMENT);
    assert!(out.is_null());
    // SAFETY: `opt` came from spvopt_optimizer_create.
    unsafe { spvopt_optimizer_destroy(opt) };
}
