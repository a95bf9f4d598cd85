//! Fuzz target: nl2sql_core::fuzzing::sql over any text.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    nl2sql_core::fuzzing::sql(&String::from_utf8_lossy(data));
});
