//! Checked mode's kernels (every array index checked, sites numbered for messages) and the
//! analysis of which arguments a kernel may write.

mod common;

use common::*;
use ember_codegen::Dialect;
use ember_jit::{compile_kernel_checked, type_kernel, Access, ParamSlot};

#[test]
fn writes_are_found_through_views_variables_device_functions_and_atomics() {
    let args = tys(&["float64[::1]"; 5]);
    let p = type_kernel(&program("writes_through_aliases"), &args).unwrap();
    assert_eq!(p.kernel_writes(), vec![false, true, true, true, true]);
}

#[test]
fn a_checked_kernel_numbers_a_site_per_index_and_takes_the_record_last() {
    for d in Dialect::ALL {
        let args = tys(&["float32[::1]", "float32[:, ::1]", "int64"]);
        let k = compile_kernel_checked(&program("checked_accesses"), &args, d).unwrap();
        assert_eq!(k.params.last(), Some(&ParamSlot::FaultRecord));
        let described: Vec<(String, usize, Access)> = k
            .sites
            .iter()
            .map(|s| (s.array.clone(), s.axis, s.access))
            .collect();
        let expect = |a: &str, axis, access| (a.to_string(), axis, access);
        for site in [
            expect("array 'grid'", 0, Access::Read),
            expect("array 'grid'", 1, Access::Read),
            expect("array 'sh'", 0, Access::Write),
            expect("array 'out'", 0, Access::Write),
        ] {
            assert!(described.contains(&site), "{site:?} in {described:?}");
        }
        // `grid[k]` makes a view whose index is checked; `sh[-1]` wraps, checked as written.
        assert!(k.source.contains("ember_chkgw("), "{}", k.source);
        assert!(k.source.contains("ember_chkw("), "{}", k.source);
        assert!(k
            .sites
            .iter()
            .all(|s| s.line > 0 && s.file.ends_with("kernels.py")));
        let plain = kernel(
            "checked_accesses",
            &["float32[::1]", "float32[:, ::1]", "int64"],
            d,
        );
        assert!(!plain.source.contains("ember_chk") && plain.sites.is_empty());
    }
}

#[test]
fn a_site_words_its_message_as_numpy_does() {
    let args = tys(&["float32[::1]", "float32[:, ::1]", "int64"]);
    let k = compile_kernel_checked(&program("checked_accesses"), &args, Dialect::Cuda).unwrap();
    let site = k
        .sites
        .iter()
        .find(|s| s.array == "array 'grid'" && s.axis == 1)
        .unwrap();
    let msg = site.message("checked_accesses", 9, 4);
    assert!(
        msg.starts_with("kernel checked_accesses (kernels.py, line ")
            && msg.ends_with(
                "index 9 is out of bounds for axis 1 of array 'grid' with size 4 (a read)"
            ),
        "{msg}"
    );
}
