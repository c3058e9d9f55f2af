//! Thread coarsening: which plans are sound, what each kernel offers, and the rewritten tree
//! and source (one hardware thread running `factor` logical threads).

mod common;

use common::*;
use ember_jit::ast::{ExprKind, Program, Stmt, StmtKind};
use ember_jit::coarsen::{coarsen, Mapping, Opportunities, Plan};
use ember_jit::compile_kernel_coarse;

const ELEMENTWISE: [&str; 3] = ["float32[::1]", "float32[::1]", "float32[::1]"];
const MATMUL: [&str; 3] = ["float32[:, ::1]", "float32[:, ::1]", "float32[:, ::1]"];

fn plan(text: &str) -> Plan {
    Plan::parse(text).unwrap_or_else(|| panic!("plan {text}"))
}

/// Every name assigned (as a target of `=` or `+=`) in `body`, nested blocks included.
fn assigned(body: &[Stmt], out: &mut Vec<String>) {
    for s in body {
        match &s.kind {
            StmtKind::Assign { targets, .. } => {
                for t in targets {
                    if let ExprKind::Name { id } = &t.kind {
                        out.push(id.clone());
                    }
                }
            }
            StmtKind::AugAssign { target, .. } => {
                if let ExprKind::Name { id } = &target.kind {
                    out.push(format!("{id} +="));
                }
            }
            StmtKind::If { body, orelse, .. }
            | StmtKind::For { body, orelse, .. }
            | StmtKind::While { body, orelse, .. } => {
                assigned(body, out);
                assigned(orelse, out);
            }
            _ => {}
        }
    }
}

fn names(program: &Program) -> Vec<String> {
    let mut out = Vec::new();
    assigned(&program.functions[0].body, &mut out);
    out
}

#[test]
fn plans_name_an_axis_a_factor_and_a_mapping() {
    let p = plan("x4a");
    assert_eq!(
        (p.axis, p.factor, p.mapping, p.aligned),
        (0, 4, Mapping::Adjacent, true)
    );
    let p = plan("z8");
    assert_eq!(
        (p.axis, p.factor, p.mapping, p.aligned),
        (2, 8, Mapping::Strided, false)
    );
    assert_eq!(Plan::new(1, 2, false), plan("y2"));
    assert_eq!(Plan::new(1, 2, true).label(), "y2a");
    assert_eq!(Plan::parse("x1"), None);
    assert_eq!(Plan::parse("w2"), None);
}

#[test]
fn an_elementwise_kernel_offers_vector_loads_along_x() {
    let o = Opportunities::of(&program("elementwise"));
    assert_eq!(o.sound, [true, true, true]);
    assert!(o.elementwise);
    assert!(!o.shared_rows);
}

#[test]
fn a_tiled_matmul_offers_shared_rows_along_y() {
    let o = Opportunities::of(&program("tiled_matmul"));
    assert!(o.sound[1]);
    assert!(o.shared_rows);
    assert!(!o.elementwise);
}

#[test]
fn a_barrier_under_a_varying_branch_is_unsound_along_that_axis_only() {
    let p = program("barrier_under_branch");
    assert_eq!(Opportunities::of(&p).sound, [false, true, true]);
    assert_eq!(
        coarsen(&p, &plan("x2")).err(),
        Some("a barrier sits under control flow that differs between coarsened threads")
    );
    assert!(coarsen(&p, &plan("y2")).is_ok());
}

#[test]
fn a_return_under_varying_control_is_unsound() {
    let p = program("return_under_branch");
    assert_eq!(
        coarsen(&p, &plan("x4")).err(),
        Some("a return sits under control flow that differs between coarsened threads")
    );
}

#[test]
fn warp_level_intrinsics_forbid_coarsening() {
    let o = Opportunities::of(&program("uses_laneid"));
    assert_eq!(o.sound, [false, false, false]);
    let o = Opportunities::of(&program("warp_info"));
    assert_eq!(o.sound, [false, false, false]);
}

#[test]
fn a_device_function_reading_the_thread_index_forbids_coarsening() {
    let p = program("device_reads_thread");
    assert_eq!(
        coarsen(&p, &plan("y2")).err(),
        Some("a device function reads the thread's place or waits at a barrier")
    );
}

#[test]
fn a_loop_that_may_wait_on_another_thread_is_unsound() {
    let p = program("spin_on_flag");
    let why = coarsen(&p, &plan("x2")).unwrap_err();
    assert!(
        why.starts_with("a while loop that differs between coarsened threads"),
        "{why}"
    );
}

#[test]
fn varying_variables_get_one_copy_per_logical_thread() {
    let p = coarsen(&program("elementwise"), &plan("x4")).unwrap();
    let n = names(&p);
    for k in 0..4 {
        assert!(n.contains(&format!("i${k}")), "{n:?}");
    }
    assert!(!n.contains(&"i".to_string()), "{n:?}");
    // The original is untouched.
    assert_eq!(names(&program("elementwise")), vec!["i".to_string()]);
}

#[test]
fn a_uniform_counter_is_updated_once_not_per_copy() {
    let p = coarsen(&program("uniform_counter"), &plan("x2")).unwrap();
    let n = names(&p);
    assert_eq!(n.iter().filter(|s| *s == "n +=").count(), 1, "{n:?}");
    assert!(!n.iter().any(|s| s.starts_with("n$")), "{n:?}");
}

#[test]
fn adjacent_copies_index_neighbouring_elements_and_load_before_storing() {
    let k = compile_kernel_coarse(
        &program("elementwise"),
        &tys(&ELEMENTWISE),
        Cuda,
        Some(&plan("x4a")),
        true,
    )
    .unwrap();
    assert_eq!(k.coarse, Some(plan("x4a")));
    let body = kernel_body(&k.source, "elementwise");
    for copy in 0..4 {
        assert!(
            body.contains(&format!(
                "(((long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x) * 4 + {copy})"
            )),
            "{body}"
        );
    }
    assert!(body.contains("__builtin_assume_aligned(p_x, 16)"), "{body}");
    // All four guarded together: the four loads, then the four stores (vectorisable).
    let together = &body[..body.find("} else {").expect("the copies one by one")];
    let last_load = together.rfind("= ((*(v_x.data").expect("loads");
    let first_store = together.find("*((v_out.data").expect("stores");
    assert!(last_load < first_store, "{body}");
    assert_eq!(count(together, "*((v_out.data"), 4, "{body}");
}

#[test]
fn strided_copies_share_one_barrier_and_one_shared_array() {
    let args = tys(&MATMUL);
    let plain = compile_kernel_coarse(&program("tiled_matmul"), &args, Cuda, None, true).unwrap();
    let k = compile_kernel_coarse(
        &program("tiled_matmul"),
        &args,
        Cuda,
        Some(&plan("y2")),
        true,
    )
    .unwrap();
    let (plain, body) = (
        kernel_body(&plain.source, "tiled_matmul"),
        kernel_body(&k.source, "tiled_matmul"),
    );
    assert_eq!(
        count(body, "__syncthreads()"),
        count(plain, "__syncthreads()")
    );
    assert_eq!(count(body, "__shared__"), 2, "{body}");
    // Each row's accumulator is its own; rows sit a hardware block apart.
    assert!(body.contains("double v_acc_u24_0 = 0;") && body.contains("double v_acc_u24_1 = 0;"));
    assert!(
        body.contains("((int)threadIdx.y + 1 * (int)blockDim.y)"),
        "{body}"
    );
}

#[test]
fn an_unsound_plan_compiles_the_plain_kernel() {
    let p = program("barrier_under_branch");
    let args = tys(&["int32[:]"]);
    let k = compile_kernel_coarse(&p, &args, Cuda, Some(&plan("x2")), true).unwrap();
    assert_eq!(k.coarse, None);
    assert_eq!(k.source, cuda("barrier_under_branch", &["int32[:]"]));
}

#[test]
fn opencl_coarse_geometry_reads_work_item_functions() {
    let k = compile_kernel_coarse(
        &program("elementwise"),
        &tys(&ELEMENTWISE),
        OpenCl,
        Some(&plan("x2")),
        true,
    )
    .unwrap();
    let body = kernel_body(&k.source, "elementwise");
    assert!(
        body.contains(
            "(((long)get_group_id(0) * (long)get_local_size(0) + (long)get_local_id(0)) * 2 + 1)"
        ),
        "{body}"
    );
    assert!(!body.contains("__builtin_assume_aligned"), "{body}");
}
