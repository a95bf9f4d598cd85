//! Fuzz target: nl2sql_core::fuzzing::checks over any question and SQL (split at the first NUL; the
//! first byte chooses what the scripted data says).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (question, sql, seed) = nl2sql_core::fuzzing::split(data);
    nl2sql_core::fuzzing::checks(&question, &sql, seed);
});
