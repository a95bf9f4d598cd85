//! Fuzz target: nl2sql_core::fuzzing::question over any text.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    nl2sql_core::fuzzing::question(&String::from_utf8_lossy(data));
});
