//! Namedtuple arguments: `p.x` on a kernel parameter that receives a namedtuple reads its
//! field by position. The field names come with each launch (they belong to the argument's
//! class, not to its type), so the kernel's tree is rewritten for them before typing: every
//! `p.x` of function 0 becomes `p[k]`. Specialisations are keyed by the names too.

use serde_json::Value;

use crate::ast::Program;

/// The program of `json` with the namedtuple fields `fields[i]` of kernel parameter `i`
/// read by position.
pub fn with_named_fields(json: &str, fields: &[Option<Vec<String>>]) -> Result<Program, String> {
    let mut v: Value = serde_json::from_str(json)
        .map_err(|e| format!("malformed kernel tree from the front: {e}"))?;
    if let Some(kernel) = v.pointer_mut("/functions/0") {
        let params: Vec<String> = kernel["params"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|p| p.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        for (param, names) in params.iter().zip(fields) {
            if let Some(names) = names {
                rewrite(&mut kernel["body"], param, names);
            }
        }
    }
    serde_json::from_value(v).map_err(|e| format!("malformed kernel tree from the front: {e}"))
}

fn rewrite(v: &mut Value, param: &str, names: &[String]) {
    match v {
        Value::Array(items) => items.iter_mut().for_each(|x| rewrite(x, param, names)),
        Value::Object(map) => {
            let field = (map.get("k").and_then(Value::as_str) == Some("Attribute"))
                .then(|| {
                    let base = map.get("value")?;
                    let is_param = base.get("k").and_then(Value::as_str) == Some("Name")
                        && base.get("id").and_then(Value::as_str) == Some(param);
                    let attr = map.get("attr")?.as_str()?;
                    is_param
                        .then(|| names.iter().position(|n| n == attr))
                        .flatten()
                })
                .flatten();
            if let Some(k) = field {
                let span = map.get("span").cloned().unwrap_or(Value::Null);
                map.insert("k".into(), Value::from("Subscript"));
                map.remove("attr");
                map.insert(
                    "index".into(),
                    serde_json::json!({"k": "Int", "v": k.to_string(), "span": span}),
                );
                return;
            }
            map.values_mut().for_each(|x| rewrite(x, param, names));
        }
        _ => {}
    }
}
