//! The typed IR's statements and memory: loops (with `else`), early returns, unification of
//! variables, array elements and views, device calls and intrinsics, and the printed form.

mod common;

use common::ir::*;
use common::*;
use ember_core::DType;
use ember_jit::ir::{
    statements, Const, ExprKind, Geometry, Role, Step, Stmt, Sync, TempRole, ViewAxis,
};
use ember_jit::{type_kernel, Ty};

#[test]
fn a_variable_assigned_int_then_float_is_float64_everywhere() {
    let p = dev("int_then_float", &["bool"]);
    let f = entry(&p);
    let r = f.locals.iter().find(|l| l.name == "r").expect("r");
    assert_eq!(r.ty, scalar(DType::F64));
    // The first assignment, `r = 0`, converts the int.
    let first = statements(&f.body)
        .into_iter()
        .find_map(|s| match s {
            Stmt::Assign { value, .. } => Some(value),
            _ => None,
        })
        .expect("an assignment");
    assert_eq!(cast_from(first), DType::I64);
    assert!(matches!(
        first.kind,
        ExprKind::Cast(ref x) if matches!(x.kind, ExprKind::Const(Const::Int(0)))
    ));
}

#[test]
fn returns_of_int_and_float_both_return_float64() {
    let p = dev("returns_int_or_float", &["int64"]);
    let f = entry(&p);
    assert_eq!(f.ret, scalar(DType::F64));
    let returns: Vec<_> = statements(&f.body)
        .into_iter()
        .filter_map(|s| match s {
            Stmt::Return(Some(v)) => Some(v),
            _ => None,
        })
        .collect();
    assert_eq!(returns.len(), 2);
    assert_eq!(cast_from(returns[0]), DType::I64);
    assert!(matches!(returns[1].kind, ExprKind::Const(Const::Float(x)) if x == 2.5));
}

#[test]
fn a_range_loop_counts_from_zero_to_a_constant_stop_by_one() {
    let p = dev("sum_to", &["int64"]);
    let f = entry(&p);
    let block = top(f)
        .into_iter()
        .find_map(|s| match s {
            Stmt::Block(b) => Some(b),
            _ => None,
        })
        .expect("the loop's block");
    let Stmt::Let {
        temp,
        constant: true,
        ..
    } = &block[0]
    else {
        panic!("{block:?}")
    };
    assert_eq!(temp.role, TempRole::Stop);
    let Stmt::For {
        ty,
        start,
        stop,
        step: Step::One,
        body,
        ..
    } = &block[1]
    else {
        panic!("{:?}", block[1])
    };
    assert_eq!(*ty, DType::I64);
    assert!(matches!(start.kind, ExprKind::Const(Const::Count(0))));
    assert!(matches!(stop.kind, ExprKind::Temp(t) if t == *temp));
    // The loop variable is assigned the counter first.
    assert!(
        matches!(&body[0], Stmt::Assign { value, .. } if matches!(value.kind, ExprKind::Temp(_)))
    );
}

#[test]
fn a_range_of_int32_arguments_counts_in_int32() {
    let p = dev("sum_to", &["int32"]);
    let f = entry(&p);
    let fors: Vec<_> = statements(&f.body)
        .into_iter()
        .filter_map(|s| match s {
            Stmt::For { ty, .. } => Some(*ty),
            _ => None,
        })
        .collect();
    assert_eq!(fors, vec![DType::I32]);
}

#[test]
fn counting_down_steps_by_a_negative_constant() {
    let p = dev("count_down", &["int64"]);
    let steps: Vec<_> = statements(&entry(&p).body)
        .into_iter()
        .filter_map(|s| match s {
            Stmt::For { step, .. } => Some(step.clone()),
            _ => None,
        })
        .collect();
    assert!(matches!(steps[..], [Step::Const(-1)]), "{steps:?}");
}

#[test]
fn a_run_time_step_is_held_in_a_constant_temporary() {
    let p = dev("stepped", &["int64", "int64"]);
    let f = entry(&p);
    let all = statements(&f.body);
    let step = all
        .iter()
        .find_map(|s| match s {
            Stmt::For {
                step: Step::Var(t), ..
            } => Some(*t),
            _ => None,
        })
        .expect("a run-time step");
    assert_eq!(step.role, TempRole::Step);
    assert!(all.iter().any(|s| matches!(
        s,
        Stmt::Let { temp, constant: true, .. } if *temp == step
    )));
}

#[test]
fn for_else_clears_a_flag_that_break_sets() {
    let p = dev("find", &["float64[:]", "float64"]);
    let f = entry(&p);
    let all = statements(&f.body);
    let flag = all
        .iter()
        .find_map(|s| match s {
            Stmt::LoopFlag(t) => Some(*t),
            _ => None,
        })
        .expect("a loop flag");
    assert!(all
        .iter()
        .any(|s| matches!(s, Stmt::Break { flag: Some(t) } if *t == flag)));
    let unbroken = all
        .iter()
        .find_map(|s| match s {
            Stmt::Unbroken { flag: t, body } if *t == flag => Some(body),
            _ => None,
        })
        .expect("the else clause");
    assert!(unbroken.iter().any(|s| matches!(s, Stmt::Return(Some(_)))));
}

#[test]
fn while_else_runs_the_else_when_the_test_fails() {
    let p = dev("loop_while", &["int64"]);
    let f = entry(&p);
    let kinds: Vec<&str> = top(f)
        .iter()
        .map(|s| match s {
            Stmt::Assign { .. } => "assign",
            Stmt::LoopFlag(_) => "flag",
            Stmt::While { .. } => "while",
            Stmt::Unbroken { .. } => "else",
            Stmt::Return(_) => "return",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["assign", "flag", "while", "else", "return"]);
}

#[test]
fn a_while_test_that_needs_a_temporary_computes_it_before_each_test() {
    let p = dev("escape_time", &["complex128", "complex128"]);
    let f = entry(&p);
    let (setup, cond) = statements(&f.body)
        .into_iter()
        .find_map(|s| match s {
            Stmt::While { setup, cond, .. } => Some((setup, cond)),
            _ => None,
        })
        .expect("a while loop");
    assert!(matches!(&setup[..], [Stmt::Let { temp, .. }] if temp.role == TempRole::Value));
    assert_eq!(cond.ty, scalar(DType::Bool));
}

#[test]
fn an_early_return_in_a_kernel_returns_nothing() {
    let k = ker("return_under_branch", &["int32[:]"]);
    let f = entry(&k);
    assert_eq!(f.role, Role::Kernel);
    assert_eq!(f.ret, Ty::None);
    let early = top(f)
        .into_iter()
        .find_map(|s| match s {
            Stmt::If { then, orelse, .. } => Some((then, orelse)),
            _ => None,
        })
        .expect("the guard");
    assert!(early.0.iter().any(|s| matches!(s, Stmt::Return(None))));
    assert!(early.1.is_empty());
}

#[test]
fn tuple_unpacking_reads_items_of_one_temporary() {
    let p = dev("swap", &["int64", "int64"]);
    let f = entry(&p);
    let s = top(f);
    let Stmt::Let { temp, value, .. } = s[0] else {
        panic!("{:?}", s[0])
    };
    assert!(matches!(value.kind, ExprKind::MakeTuple(_)));
    for (k, st) in s[1..3].iter().enumerate() {
        let Stmt::Assign { value, .. } = st else {
            panic!("{st:?}")
        };
        assert!(
            matches!(&value.kind, ExprKind::Item(t, i) if *i == k && matches!(t.kind, ExprKind::Temp(x) if x == *temp))
        );
    }
}

#[test]
fn a_known_nonnegative_index_is_not_wrapped() {
    let k = ker(
        "saxpy",
        &["float32[::1]", "float32[:]", "float32[:]", "float32"],
    );
    let stores: Vec<_> = statements(&entry(&k).body)
        .into_iter()
        .filter_map(|s| match s {
            Stmt::Store { place, .. } => Some(place),
            _ => None,
        })
        .collect();
    assert_eq!(stores.len(), 1);
    assert!(matches!(stores[0].indices[0].kind, ExprKind::Local(_)));
}

#[test]
fn a_signed_index_of_unknown_sign_is_wrapped_by_the_dimension() {
    let e = ret("item_at", &["float64[:]", "int64"]);
    let ExprKind::Element(place) = &e.kind else {
        panic!("{e:?}")
    };
    let ExprKind::Wrap { len, .. } = &place.indices[0].kind else {
        panic!("{:?}", place.indices[0])
    };
    assert!(matches!(len.kind, ExprKind::Dim(_, 0)));
    assert_eq!(dtype(&e), DType::F64);
}

#[test]
fn an_unsigned_index_is_widened_but_not_wrapped() {
    let e = ret("item_at", &["float32[:]", "uint32"]);
    let ExprKind::Element(place) = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!(cast_from(&place.indices[0]), DType::U32);
    assert_eq!(dtype(&place.indices[0]), DType::I64);
}

#[test]
fn a_two_dimensional_element_takes_one_index_per_dimension() {
    let e = ret("cell", &["int16[:, ::1]", "int64", "int64"]);
    let ExprKind::Element(place) = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!(place.indices.len(), 2);
    assert_eq!(place.ty.ndim, 2);
    assert_eq!(e.ty, scalar(DType::I16));
}

#[test]
fn slices_and_transposes_are_view_statements() {
    let k = ker("slices", &["float64[:]", "float64[:, :]"]);
    let all = statements(&entry(&k).body);
    let axes = all
        .iter()
        .find_map(|s| match s {
            Stmt::View { axes, ty, .. } => Some((axes, ty)),
            _ => None,
        })
        .expect("a view");
    assert!(matches!(
        &axes.0[..],
        [
            ViewAxis::Index(_),
            ViewAxis::Slice {
                lo: Some(_),
                hi: None,
                step: 1
            }
        ]
    ));
    assert!(matches!(axes.1, Ty::Array(a) if a.ndim == 1));
    assert!(all.iter().any(|s| matches!(s, Stmt::Transpose { .. })));
}

#[test]
fn a_shared_array_is_declared_once_with_its_element_count() {
    let k = ker("block_sum", &["float32[:]", "float32[:]"]);
    let f = entry(&k);
    assert_eq!(f.arrays.len(), 1);
    assert!(f.arrays[0].shared);
    assert_eq!((f.arrays[0].count, f.arrays[0].dtype), (256, DType::F32));
    assert_eq!(
        find(f, |e| matches!(e.kind, ExprKind::FixedArray(_))).len(),
        1
    );
}

#[test]
fn an_in_place_update_reads_the_current_element() {
    let k = ker("block_sum", &["float32[:]", "float32[:]"]);
    let update = statements(&entry(&k).body)
        .into_iter()
        .find_map(|s| match s {
            Stmt::Update { value, pointer, .. } => Some((value, pointer)),
            _ => None,
        })
        .expect("tile[t] += ...");
    assert_eq!(update.1.role, TempRole::Pointer);
    assert!(update
        .0
        .descendants()
        .iter()
        .any(|e| matches!(e.kind, ExprKind::Current)));
}

#[test]
fn a_local_array_is_declared_local() {
    let k = ker("local_scratch", &["float64[:]"]);
    let f = entry(&k);
    assert!(!f.arrays[0].shared);
    assert_eq!((f.arrays[0].count, f.arrays[0].dtype), (4, DType::F64));
}

#[test]
fn dynamic_shared_memory_is_a_statement_of_its_own() {
    let k = ker("dynamic_shared", &["float32[:]"]);
    assert!(statements(&entry(&k).body).iter().any(|s| matches!(
        s,
        Stmt::DynamicShared {
            dtype: DType::F32,
            ..
        }
    )));
}

#[test]
fn an_atomic_add_casts_its_value_to_the_element_type() {
    let k = ker("histogram", &["int32[:]", "int64[:]"]);
    let f = entry(&k);
    let atomics = find(f, |e| matches!(e.kind, ExprKind::Atomic { .. }));
    let ExprKind::Atomic { value, place, .. } = &atomics[0].kind else {
        unreachable!()
    };
    assert_eq!(atomics[0].ty, scalar(DType::I32));
    assert_eq!(dtype(value), DType::I32);
    // values[i] may be negative: wrapped.
    assert!(matches!(place.indices[0].kind, ExprKind::Wrap { .. }));
}

#[test]
fn a_random_draw_reads_its_state_row() {
    let k = ker("random_draws", &["float32[:]", "uint64[:, :]"]);
    let f = entry(&k);
    let draws = find(f, |e| matches!(e.kind, ExprKind::Random(..)));
    let ExprKind::Random(name, place) = &draws[0].kind else {
        unreachable!()
    };
    assert_eq!(*name, "xoroshiro128p_uniform_float32");
    assert!(matches!(
        place.indices[1].kind,
        ExprKind::Const(Const::Count(0))
    ));
    assert_eq!(draws[0].ty, scalar(DType::F32));
}

#[test]
fn thread_indices_are_int32_and_grid_is_int64() {
    let k = ker("thread_indices", &["int32[:]"]);
    let f = entry(&k);
    let geo = find(f, |e| matches!(e.kind, ExprKind::Geometry(_)));
    let kinds: Vec<Geometry> = geo
        .iter()
        .map(|e| match e.kind {
            ExprKind::Geometry(g) => g,
            _ => unreachable!(),
        })
        .collect();
    assert!(kinds.contains(&Geometry::BlockIdx(0)));
    assert!(kinds.contains(&Geometry::GridDim(1)));
    assert!(kinds.contains(&Geometry::BlockDim(2)));
    assert!(geo.iter().all(|e| e.ty == scalar(DType::I32)));
    let k = ker(
        "saxpy",
        &["float32[::1]", "float32[:]", "float32[:]", "float32"],
    );
    let grid = find(entry(&k), |e| {
        matches!(e.kind, ExprKind::Geometry(Geometry::Grid(0)))
    });
    assert_eq!(grid[0].ty, scalar(DType::I64));
}

#[test]
fn barriers_and_fences_are_expression_statements_of_no_value() {
    let k = ker("fences", &["int32[:]"]);
    let syncs: Vec<_> = statements(&entry(&k).body)
        .into_iter()
        .filter_map(|s| match s {
            Stmt::Eval(e) => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(syncs.len(), 3);
    assert!(syncs.iter().all(|e| e.ty == Ty::None));
    assert!(matches!(syncs[2].kind, ExprKind::Sync(Sync::Fence(2))));
}

#[test]
fn device_calls_name_one_specialisation_per_signature() {
    let k = ker(
        "calls_scale_with_two_types",
        &["float64[:]", "float32[:]", "int64"],
    );
    assert_eq!(k.functions.len(), 2);
    let params: Vec<Ty> = k.functions.iter().map(|f| f.params[0].ty.clone()).collect();
    assert_eq!(params, vec![scalar(DType::F32), scalar(DType::I64)]);
    let f = entry(&k);
    assert_eq!(f.calls, vec![0, 1]);
    let calls = find(f, |e| matches!(e.kind, ExprKind::Call(..)));
    // scale(float32, float64) is float64; scale(int64, int64) is int64.
    let rets: Vec<Ty> = calls.iter().map(|c| c.ty.clone()).collect();
    assert_eq!(rets, vec![scalar(DType::F64), scalar(DType::I64)]);
}

#[test]
fn keyword_arguments_are_passed_in_parameter_order() {
    let k = ker("calls_with_keyword", &["float64[:]", "float64[:]"]);
    let calls = find(entry(&k), |e| matches!(e.kind, ExprKind::Call(..)));
    let ExprKind::Call(_, args) = &calls[0].kind else {
        unreachable!()
    };
    // scale(factor=3.0, x=x[i]) calls scale(x[i], 3.0).
    assert!(matches!(args[0].kind, ExprKind::Element(_)));
    assert!(matches!(args[1].kind, ExprKind::Const(Const::Float(x)) if x == 3.0));
}

#[test]
fn nested_device_calls_are_typed_callee_first() {
    let k = ker("calls_scale_twice", &["float64[:]", "float32[:]"]);
    let names: Vec<&str> = k.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["scale", "scale", "scale_twice"]);
    assert_eq!(k.functions[2].calls, vec![0, 1]);
    assert!(matches!(k.functions[2].role, Role::Device { ordinal: 0 }));
}

#[test]
fn a_guarded_read_stays_under_its_guard() {
    // `i < z.size and abs(z[i]) > 1.0`: z[i] is read only when i is in bounds.
    let k = ker("guarded_complex_read", &["int64[:]", "complex128[:]"]);
    let f = entry(&k);
    let guard = statements(&f.body)
        .into_iter()
        .find_map(|s| match s {
            Stmt::If {
                then,
                negate: false,
                orelse,
                ..
            } if orelse.is_empty() && then.iter().any(|t| matches!(t, Stmt::Let { .. })) => {
                Some(then)
            }
            _ => None,
        })
        .expect("the guard");
    let read = guard
        .iter()
        .find_map(|s| match s {
            Stmt::Let { value, .. } => Some(value),
            _ => None,
        })
        .expect("the read");
    assert!(matches!(read.kind, ExprKind::Element(_)));
}

#[test]
fn a_conditional_expression_without_setup_is_a_select() {
    let k = ker("block_sum", &["float32[:]", "float32[:]"]);
    let selects = find(entry(&k), |e| matches!(e.kind, ExprKind::Select(..)));
    assert_eq!(selects.len(), 1);
    assert_eq!(selects[0].ty, scalar(DType::F64));
}

#[test]
fn typing_reports_the_same_errors_as_compiling() {
    for (name, args) in [
        ("variable_changes_kind", vec!["int32[:]", "float32[:]"]),
        (
            "whole_array_add",
            vec!["float32[:]", "float32[:]", "float32[:]"],
        ),
        ("range_zero_step", vec!["int32[:]"]),
    ] {
        let typed = type_kernel(&program(name), &tys(&args)).expect_err(name);
        assert_eq!(typed.to_string(), kernel_error(name, &args, Cuda));
    }
}

#[test]
fn the_printed_ir_reads_like_the_python() {
    let p = dev("add", &["int32", "float32"]);
    assert_eq!(
        p.to_string(),
        "# function 0\ndef add(a: int32, b: float32) -> float64:\n  # line 27\n  return (float64(a) + float64(b))\n"
    );
    let p = dev("find", &["float64[:]", "float64"]);
    let text = p.to_string();
    assert!(text.contains("  var i: int64 (>= 0)\n"), "{text}");
    assert!(text.contains("for i10: int64 in range(0, n11):"), "{text}");
    assert!(text.contains("broke9 = True; break"), "{text}");
    assert!(text.contains("if not broke9:"), "{text}");
}

#[test]
fn the_printed_ir_names_callees() {
    let k = ker("calls_scale_twice", &["float64[:]", "float32[:]"]);
    let text = k.to_string();
    assert!(text.contains("return scale#1(scale#0(x, 2), 3)"), "{text}");
    assert!(text.contains("out[i] = scale_twice#2(x[i])"), "{text}");
}

#[test]
fn every_fixture_types_into_a_well_formed_ir() {
    let sigs = include_str!("fixtures/golden_signatures.tsv");
    let mut checked = 0;
    for line in sigs.lines().filter(|l| !l.trim().is_empty()) {
        let (name, args) = line.split_once('\t').unwrap_or((line, ""));
        let args: Vec<&str> = args.split('|').filter(|a| !a.is_empty()).collect();
        let (p, t) = (program(name), tys(&args));
        for typed in [type_kernel(&p, &t), ember_jit::type_device(&p, &t)]
            .into_iter()
            .flatten()
        {
            if let Err(e) = ember_jit::ir::verify(&typed) {
                panic!("{name}({args:?}): {e}");
            }
            checked += 1;
        }
    }
    assert!(checked > 1000, "{checked}");
}

#[test]
fn the_verifier_names_a_missing_conversion() {
    let mut p = dev("add", &["int32", "float32"]);
    let f = p.functions.last_mut().expect("add");
    // Drop the cast of `a`: int32 + float64 is not an operation of one type.
    for s in &mut f.body {
        if let Stmt::Return(Some(v)) = s {
            if let ExprKind::Binary(_, l, _) = &mut v.kind {
                if let ExprKind::Cast(inner) = l.kind.clone() {
                    **l = *inner;
                }
            }
        }
    }
    let err = ember_jit::ir::verify(&p).expect_err("a missing cast");
    assert!(
        err.contains("left of +: int32 where float64 is expected"),
        "{err}"
    );
}

#[test]
fn a_parameter_keeps_the_argument_type_when_its_variable_widens() {
    // `a, b = b, a` with int64 and float32: both variables become float64, but callers
    // (and a kernel's launch) still pass an int64 and a float32.
    let p = dev("swap", &["int64", "float32"]);
    let f = entry(&p);
    let args: Vec<Ty> = f.params.iter().map(|p| p.ty.clone()).collect();
    assert_eq!(args, vec![scalar(DType::I64), scalar(DType::F32)]);
    assert_eq!(f.locals[0].ty, scalar(DType::F64));
    assert!(p
        .to_string()
        .contains("def swap(a: int64 (as float64), b: float32 (as float64))"));
    let src = device("swap", &["int64", "float32"], Cuda).preamble;
    assert!(
        src.contains("ember_fn0_swap(long long p_a, float p_b)"),
        "{src}"
    );
}

#[test]
fn a_kernel_scalar_keeps_the_launch_type_when_its_variable_widens() {
    // `x = x * 0.5` with an int64 argument: the launch packs an int64, so the kernel takes one
    // and converts it to the float64 variable on entry.
    let k = ker("widens_scalar", &["float64[:]", "int64"]);
    let f = entry(&k);
    assert_eq!(f.params[1].ty, scalar(DType::I64));
    assert_eq!(f.locals[1].ty, scalar(DType::F64));
    for dialect in [Cuda, OpenCl] {
        let src = kernel("widens_scalar", &["float64[:]", "int64"], dialect).source;
        let body = kernel_body(&src, "widens_scalar");
        assert!(body.contains(" p_x)"), "{body}");
        assert!(
            body.contains("long p_x") || body.contains("long long p_x"),
            "{body}"
        );
        assert!(body.contains("double v_x = 0;"), "{body}");
    }
}
