//! The parameter types a kernel's source declares (`__global__ void k(float *a, size_t n)`), as far
//! as packing its arguments needs them: the driver tells only sizes, and a `size_t` and a `long
//! long` (or an `int` and a `float`) are the same size but take NumPy scalars differently.

/// A declared parameter type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CType {
    Int {
        bytes: usize,
        signed: bool,
    },
    Float {
        bytes: usize,
    },
    Pointer,
    /// A struct, template parameter or vector type: only its size is checked.
    Other,
}

impl CType {
    /// Its size in bytes, where the type says it.
    pub fn size(&self) -> Option<usize> {
        match self {
            CType::Int { bytes, .. } | CType::Float { bytes } => Some(*bytes),
            CType::Pointer => Some(8),
            CType::Other => None,
        }
    }

    /// How an error message names it.
    pub fn describe(&self) -> String {
        match self {
            CType::Int { bytes, signed } => {
                let sign = if *signed { "a signed" } else { "an unsigned" };
                format!("{sign} {bytes}-byte integer")
            }
            CType::Float { bytes } => format!("a {bytes}-byte float"),
            CType::Pointer => "a pointer".into(),
            CType::Other => "a value".into(),
        }
    }
}

/// The declared parameter types of kernel `name` in CUDA C or OpenCL C `source`, or `None` when
/// the declaration cannot be found (a name made by a macro, a template instance).
pub fn kernel_params(source: &str, name: &str) -> Option<Vec<CType>> {
    let code = without_comments(source);
    let source = code.as_str();
    let bytes = source.as_bytes();
    let mut from = 0;
    while let Some(pos) = source[from..].find(name) {
        let start = from + pos;
        let end = start + name.len();
        from = end;
        let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        if (start > 0 && ident(bytes[start - 1])) || bytes.get(end).is_some_and(|&b| ident(b)) {
            continue;
        }
        let rest = source[end..].trim_start();
        if !rest.starts_with('(') {
            continue;
        }
        // The declaration's head: from the previous `;`, `}` or `{` to the name.
        let head_start = source[..start].rfind([';', '}', '{']).map_or(0, |p| p + 1);
        let head = &source[head_start..start];
        if !["__global__", "__kernel", "kernel"]
            .iter()
            .any(|k| words(head).any(|w| w == *k))
        {
            continue;
        }
        let list = balanced(&rest[1..])?;
        return Some(split_top_level(list).map(param_type).collect());
    }
    None
}

/// `source` with comments and string literals blanked out (same length, so positions hold): a
/// `*` or `,` in a comment must not change a parameter, nor a name in one be taken for a kernel.
fn without_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                out.push(' ');
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                    out.push(' ');
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                out.push(' ');
                let mut last = ' ';
                for c in chars.by_ref() {
                    out.push(if c == '\n' { '\n' } else { ' ' });
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            '"' => {
                out.push(' ');
                let mut escaped = false;
                for c in chars.by_ref() {
                    out.push(' ');
                    if c == '"' && !escaped {
                        break;
                    }
                    escaped = c == '\\' && !escaped;
                }
            }
            c => out.push(c),
        }
    }
    out
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// The text up to the parenthesis that closes the one before `text`.
fn balanced(text: &str) -> Option<&str> {
    let mut depth = 1usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[..i]);
                }
            }
            _ => {}
        }
    }
    None
}

fn split_top_level(list: &str) -> impl Iterator<Item = &str> {
    let mut parts = Vec::new();
    let (mut depth, mut last) = (0i32, 0);
    for (i, c) in list.char_indices() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&list[last..i]);
                last = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&list[last..]);
    parts
        .into_iter()
        .filter(|p| !p.trim().is_empty() && p.trim() != "void")
}

const QUALIFIERS: &[&str] = &[
    "const",
    "volatile",
    "__restrict__",
    "restrict",
    "__restrict",
    "__global",
    "global",
    "__private",
    "private",
    "__constant",
    "register",
    "__grid_constant__",
];

fn param_type(param: &str) -> CType {
    if param.contains('*') || param.contains('[') || param.contains('&') {
        return CType::Pointer;
    }
    let mut type_words: Vec<&str> = words(param).filter(|w| !QUALIFIERS.contains(w)).collect();
    // The last word names the parameter, unless the type stands alone (`int`).
    if type_words.len() > 1 && !is_type_word(type_words[type_words.len() - 1]) {
        type_words.pop();
    }
    scalar_type(&type_words)
}

fn is_type_word(w: &str) -> bool {
    matches!(
        w,
        "char" | "short" | "int" | "long" | "signed" | "unsigned" | "float" | "double"
    )
}

/// The type the words name: C's built-in types in any order of their words (`long unsigned
/// int`), the fixed-width and OpenCL names, or `Other`.
fn scalar_type(words: &[&str]) -> CType {
    let int = |bytes, signed| CType::Int { bytes, signed };
    if let [one] = words {
        match *one {
            "int8_t" => return int(1, true),
            "uchar" | "uint8_t" => return int(1, false),
            "int16_t" => return int(2, true),
            "ushort" | "uint16_t" => return int(2, false),
            "int32_t" => return int(4, true),
            "uint" | "uint32_t" => return int(4, false),
            "int64_t" | "ptrdiff_t" | "ssize_t" | "intptr_t" => return int(8, true),
            "ulong" | "uint64_t" | "size_t" | "uintptr_t" => return int(8, false),
            "float" => return CType::Float { bytes: 4 },
            "double" => return CType::Float { bytes: 8 },
            // `ember_half`: a half parameter of CUDA C translated to OpenCL C (its bits).
            "half" | "__half" | "ember_half" => return CType::Float { bytes: 2 },
            _ => {}
        }
    }
    let count = |w: &str| words.iter().filter(|x| **x == w).count();
    let (unsigned, signed) = (count("unsigned"), count("signed"));
    let (short, long, char, int_word) =
        (count("short"), count("long"), count("char"), count("int"));
    if words.is_empty()
        || unsigned + signed + short + long + char + int_word != words.len()
        || unsigned + signed > 1
        || (char > 0 && short + long + int_word > 0)
        || (short > 0 && long > 0)
        || long > 2
        || char > 1
        || short > 1
        || int_word > 1
    {
        return CType::Other;
    }
    // A plain `char` is signed on the hosts ember runs on (x86-64) and in OpenCL C.
    let bytes = match (char, short, long) {
        (1, _, _) => 1,
        (_, 1, _) => 2,
        (_, _, 0) => 4,
        _ => 8, // long is 8 bytes in CUDA C on 64-bit Linux and in OpenCL C
    };
    int(bytes, unsigned == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const INT4: CType = CType::Int {
        bytes: 4,
        signed: true,
    };
    const SIZE_T: CType = CType::Int {
        bytes: 8,
        signed: false,
    };

    #[test]
    fn cuda_kernel_parameters() {
        let src = "extern \"C\" __global__ void scale(const float* __restrict__ a, float *out, size_t n, int k, unsigned long long m, double f) {}";
        assert_eq!(
            kernel_params(src, "scale").unwrap(),
            vec![
                CType::Pointer,
                CType::Pointer,
                SIZE_T,
                INT4,
                SIZE_T,
                CType::Float { bytes: 8 }
            ]
        );
    }

    #[test]
    fn opencl_kernel_parameters() {
        let src = "__kernel void add(__global const float *a, const uint n, long k, __local float* tile) {}";
        assert_eq!(
            kernel_params(src, "add").unwrap(),
            vec![
                CType::Pointer,
                CType::Int {
                    bytes: 4,
                    signed: false
                },
                CType::Int {
                    bytes: 8,
                    signed: true
                },
                CType::Pointer
            ]
        );
    }

    #[test]
    fn the_kernel_not_a_device_function_of_a_similar_name() {
        let src = "__device__ float add_one(float x) { return x; }\n__device__ int add(int a) { return a; }\n__global__ void add(int *o, short s) { o[0] = add(s); }";
        assert_eq!(
            kernel_params(src, "add").unwrap(),
            vec![
                CType::Pointer,
                CType::Int {
                    bytes: 2,
                    signed: true
                }
            ]
        );
    }

    #[test]
    fn comments_and_word_orders() {
        let src = "// multiply_them(dest, a, b, n): the tutorial's kernel\n__global__ void multiply_them(float *dest, /* out, n of them */ size_t n, // count\n long unsigned int m, short unsigned s, int long l) {}";
        assert_eq!(
            kernel_params(src, "multiply_them").unwrap(),
            vec![
                CType::Pointer,
                SIZE_T,
                SIZE_T,
                CType::Int {
                    bytes: 2,
                    signed: false
                },
                CType::Int {
                    bytes: 8,
                    signed: true
                }
            ]
        );
    }

    #[test]
    fn unknown_types_and_missing_kernels() {
        let src = "template<typename T> __global__ void k(T x, float2 v) {}";
        assert_eq!(
            kernel_params(src, "k").unwrap(),
            vec![CType::Other, CType::Other]
        );
        assert_eq!(kernel_params(src, "other"), None);
        assert_eq!(
            kernel_params("__global__ void e() {}", "e").unwrap(),
            vec![]
        );
        assert_eq!(
            kernel_params("__global__ void e(void) {}", "e").unwrap(),
            vec![]
        );
    }
}
