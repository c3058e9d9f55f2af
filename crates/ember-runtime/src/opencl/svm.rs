//! Shared virtual memory (OpenCL 2.0, PyOpenCL's `SVMAllocation`): allocations whose address
//! is the same on the host and in kernels. Coarse-grain memory is touched by the host only
//! between a map and an unmap; fine-grain memory at any time. Commands go on a queue in its
//! order, as buffer copies do.

use std::ffi::c_void;
use std::ptr;

use cl3::command_queue as cq;
use cl3::info_type::InfoType;
use cl3::kernel as kn;
use cl3::memory as mem;
use cl3::types::{cl_kernel, cl_program, CL_FALSE};
use ember_core::{Error, Result};

use super::cl_error;
use super::device::{p, ClDevice};
use super::in_flight::wait_for;
use crate::backend::Handle;

/// A new kernel object of the same program and function as `kernel`.
pub(super) fn fresh_kernel(kernel: cl_kernel) -> Result<cl_kernel> {
    let program = match kn::get_kernel_info(kernel, kn::CL_KERNEL_PROGRAM) {
        Ok(InfoType::Ptr(p)) => p as cl_program,
        Ok(_) => return Err(Error::Value("the kernel names no program".into())),
        Err(c) => return Err(cl_error("clGetKernelInfo", c)),
    };
    let name = match kn::get_kernel_info(kernel, kn::CL_KERNEL_FUNCTION_NAME) {
        Ok(InfoType::VecUchar(b)) => b,
        Ok(_) => return Err(Error::Value("the kernel has no name".into())),
        Err(c) => return Err(cl_error("clGetKernelInfo", c)),
    };
    let name = std::ffi::CString::new(
        name.into_iter()
            .take_while(|&c| c != 0)
            .collect::<Vec<u8>>(),
    )
    .map_err(|_| Error::Value("the kernel's name has a NUL byte".into()))?;
    kn::create_kernel(program, &name).map_err(|c| cl_error("clCreateKernel", c))
}

/// What `clSVMAlloc` gives for `flags`: the bits of `svm_mem_flags`.
pub fn describe_failure(bytes: usize, flags: u64) -> String {
    format!(
        "clSVMAlloc of {bytes} bytes (flags {flags:#x}) failed: the device may not support this kind of shared virtual memory (see device.svm_capabilities), or is out of memory"
    )
}

impl ClDevice {
    /// A new SVM allocation of `bytes` (at least 1) aligned to `alignment` (0: the device's).
    pub fn svm_alloc(&self, flags: u64, bytes: usize, alignment: u32) -> Result<u64> {
        let address = unsafe { mem::svm_alloc(self.context(), flags, bytes.max(1), alignment) }
            .map(|p| p as u64)
            .map_err(|_| Error::Value(describe_failure(bytes, flags)))?;
        self.spans_of_svm().insert(address, bytes.max(1));
        Ok(address)
    }

    fn spans_of_svm(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<u64, usize>> {
        self.svm_spans.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether `bytes` at `address` lie inside one live SVM allocation.
    pub(super) fn svm_span_holds(&self, address: u64, bytes: usize) -> bool {
        self.spans_of_svm()
            .iter()
            .any(|(&start, &len)| address >= start && address + bytes as u64 <= start + len as u64)
    }

    /// Frees an SVM allocation once the work queued before now is done (the device's queues
    /// are finished first: `clSVMFree` itself does not wait).
    pub fn svm_free(&self, address: u64) -> Result<()> {
        self.finish_all()?;
        self.spans_of_svm().remove(&address);
        unsafe { mem::svm_free(self.context(), address as *mut c_void) }
            .map_err(|c| cl_error("clSVMFree", c))
    }

    /// Copies `bytes` from `src` to `dst` (either may be SVM or host memory); returns when done.
    pub fn svm_memcpy(&self, dst: u64, src: u64, bytes: usize, stream: Handle) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        self.order(stream)?;
        unsafe {
            cq::enqueue_svm_mem_cpy(
                p(stream),
                CL_FALSE,
                dst as *mut c_void,
                src as *const c_void,
                bytes,
                0,
                ptr::null(),
            )
        }
        .map_err(|c| cl_error("clEnqueueSVMMemcpy", c))
        .and_then(|e| wait_for(p(stream), e, self.spin))
    }

    /// Fills `bytes` at `address` with repetitions of `pattern`.
    pub fn svm_fill(
        &self,
        address: u64,
        pattern: &[u8],
        bytes: usize,
        stream: Handle,
    ) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        self.order(stream)?;
        let event = unsafe {
            cq::enqueue_svm_mem_fill(
                p(stream),
                address as *mut c_void,
                pattern.as_ptr().cast(),
                pattern.len(),
                bytes,
                0,
                ptr::null(),
            )
        };
        self.queued(stream, event, "clEnqueueSVMMemFill")
    }

    /// Maps `bytes` at `address` for the host (`map_flags`); returns once the host may touch it.
    pub fn svm_map(&self, address: u64, bytes: usize, flags: u64, stream: Handle) -> Result<()> {
        self.order(stream)?;
        unsafe {
            cq::enqueue_svm_map(
                p(stream),
                CL_FALSE,
                flags,
                address as *mut c_void,
                bytes.max(1),
                0,
                ptr::null(),
            )
        }
        .map_err(|c| cl_error("clEnqueueSVMMap", c))
        .and_then(|e| wait_for(p(stream), e, self.spin))
    }

    /// Ends a map: commands queued after this see the host's writes.
    pub fn svm_unmap(&self, address: u64, stream: Handle) -> Result<()> {
        self.order(stream)?;
        let event =
            unsafe { cq::enqueue_svm_unmap(p(stream), address as *mut c_void, 0, ptr::null()) };
        self.queued(stream, event, "clEnqueueSVMUnmap")
    }

    /// Moves allocations toward the device (`to_host` false) or the host.
    pub fn svm_migrate(&self, spans: &[(u64, usize)], flags: u64, stream: Handle) -> Result<()> {
        if spans.is_empty() {
            return Ok(());
        }
        self.order(stream)?;
        let pointers: Vec<*const c_void> = spans.iter().map(|&(a, _)| a as *const c_void).collect();
        let sizes: Vec<usize> = spans.iter().map(|&(_, n)| n).collect();
        let event = unsafe {
            cq::enqueue_svm_migrate_mem(
                p(stream),
                pointers.len() as u32,
                pointers.as_ptr(),
                sizes.as_ptr(),
                flags,
                0,
                ptr::null(),
            )
        };
        self.queued(stream, event, "clEnqueueSVMMigrateMem")
    }
}
