//! NVTX ranges (`nvtxRangePushEx`/`nvtxRangePop`, from CUDA 13's `libnvtx3interop` or CUDA
//! 12's `libnvToolsExt`), which Nsight Systems shows on its timeline. Loaded on first use ([`loader::search_nvtx`]); without the
//! library a range is a no-op and the callers say so once.

use std::ffi::{c_char, c_int, CString};
use std::sync::OnceLock;

use super::loader;

/// `nvtxEventAttributes_t` (NVTX 2): a message and an ARGB colour.
#[repr(C)]
struct EventAttributes {
    version: u16,
    size: u16,
    category: u32,
    color_type: i32,
    color: u32,
    payload_type: i32,
    reserved0: i32,
    payload: u64,
    message_type: i32,
    message: *const c_char,
}

const NVTX_VERSION: u16 = 2;
const COLOR_ARGB: i32 = 1;
const MESSAGE_ASCII: i32 = 1;

struct Nvtx {
    push_ex: unsafe extern "C" fn(*const EventAttributes) -> c_int,
    pop: unsafe extern "C" fn() -> c_int,
    /// Keeps the functions' library loaded.
    _library: libloading::Library,
}

fn nvtx() -> Option<&'static Nvtx> {
    static NVTX: OnceLock<Option<Nvtx>> = OnceLock::new();
    NVTX.get_or_init(|| {
        if !loader::search_nvtx().found {
            return None;
        }
        // Found and loaded globally by the search: opening it by soname returns that copy.
        let library = loader::NVTX_SONAMES
            .iter()
            .find_map(|name| unsafe { libloading::Library::new(name) }.ok())?;
        unsafe {
            let push_ex = *library
                .get::<unsafe extern "C" fn(*const EventAttributes) -> c_int>(b"nvtxRangePushEx\0")
                .ok()?;
            let pop = *library
                .get::<unsafe extern "C" fn() -> c_int>(b"nvtxRangePop\0")
                .ok()?;
            Some(Nvtx {
                push_ex,
                pop,
                _library: library,
            })
        }
    })
    .as_ref()
}

/// Whether NVTX was found.
pub fn available() -> bool {
    nvtx().is_some()
}

/// Opens a range named `message` in colour `argb` on this thread; false without NVTX.
pub fn push(message: &str, argb: u32) -> bool {
    let Some(n) = nvtx() else {
        return false;
    };
    // An interior NUL ends the name there, as C reads it.
    let text = CString::new(message.split('\0').next().unwrap_or_default()).unwrap_or_default();
    let attributes = EventAttributes {
        version: NVTX_VERSION,
        size: std::mem::size_of::<EventAttributes>() as u16,
        category: 0,
        color_type: COLOR_ARGB,
        color: argb,
        payload_type: 0,
        reserved0: 0,
        payload: 0,
        message_type: MESSAGE_ASCII,
        message: text.as_ptr(),
    };
    unsafe { (n.push_ex)(&attributes) };
    true
}

/// Closes this thread's innermost range; false without NVTX.
pub fn pop() -> bool {
    match nvtx() {
        Some(n) => {
            unsafe { (n.pop)() };
            true
        }
        None => false,
    }
}
