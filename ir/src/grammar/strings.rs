//! String operands: nul-terminated UTF-8 packed little-endian into words.

/// The bytes of a string operand, up to (not including) the terminating nul.
pub fn string_bytes(words: &[u32]) -> &[u8] {
    // SAFETY-free reinterpretation: collect via a slice of the words' little-endian bytes.
    let bytes: &[u8] = bytemuck_words(words);
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    &bytes[..end]
}

/// Reads a string operand starting at `words[0]`; `None` if unterminated or not UTF-8.
pub fn decode_string(words: &[u32]) -> Option<&str> {
    let bytes: &[u8] = bytemuck_words(words);
    let end = bytes.iter().position(|&b| b == 0)?;
    std::str::from_utf8(&bytes[..end]).ok()
}

/// Encodes `s` as a nul-terminated, zero-padded word string.
pub fn encode_string(s: &str) -> Vec<u32> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() / 4 + 1);
    for chunk in bytes.chunks(4) {
        let mut b = [0u8; 4];
        b[..chunk.len()].copy_from_slice(chunk);
        out.push(u32::from_le_bytes(b));
    }
    if bytes.len().is_multiple_of(4) {
        out.push(0);
    }
    out
}

fn bytemuck_words(words: &[u32]) -> &[u8] {
    // u32 has no padding and any byte pattern is a valid u8, so viewing the words as bytes is
    // sound; on big-endian hosts the byte order would differ, which we do not support.
    #[cfg(target_endian = "big")]
    compile_error!("spvopt-ir assumes a little-endian host");
    // SAFETY: the pointer and length describe exactly the memory of `words`; u8 has alignment 1.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), std::mem::size_of_val(words)) }
}
