//! Separate compilation (OpenCL 1.2's `clCompileProgram` + `clLinkProgram`, PyOpenCL's
//! `Program.compile` and `link_program`): compiled objects are kept as driver programs and
//! linked into an executable program that loads as an ember module.

use std::ffi::CString;
use std::ptr;

use cl3::info_type::InfoType;
use cl3::program as pg;
use cl3::types::cl_program;
use ember_core::{Error, Result};

use super::cl_error;
use super::device::{h, p, ClDevice};
use crate::backend::Handle;

fn c_text(text: &str, what: &str) -> Result<CString> {
    CString::new(text).map_err(|_| Error::Value(format!("{what} may not contain NUL bytes")))
}

impl ClDevice {
    /// Compiles `source` into an object for [`ClDevice::link_objects`]. `headers` are
    /// (include name, source) pairs that `#include "name"` in `source` finds.
    pub fn compile_object(
        &self,
        source: &str,
        options: &[String],
        headers: &[(String, String)],
    ) -> Result<Handle> {
        let create = |text: &str| {
            pg::create_program_with_source(self.context(), &[text])
                .map_err(|c| cl_error("clCreateProgramWithSource", c))
        };
        let program = create(source)?;
        let mut header_programs: Vec<cl_program> = Vec::new();
        let mut names: Vec<CString> = Vec::new();
        let built = (|| {
            for (name, text) in headers {
                names.push(c_text(name, "header names")?);
                header_programs.push(create(text)?);
            }
            let name_refs: Vec<&std::ffi::CStr> = names.iter().map(|n| n.as_c_str()).collect();
            let joined = c_text(&options.join(" "), "compile options")?;
            pg::compile_program(
                program,
                &[self.device_id()],
                &joined,
                &header_programs,
                &name_refs,
                None,
                ptr::null_mut(),
            )
            .map_err(|code| {
                let log = self.build_log(program);
                let log = if log.trim().is_empty() {
                    format!(
                        "clCompileProgram returned {}",
                        cl3::error_codes::error_text(code)
                    )
                } else {
                    log
                };
                Error::compile("OpenCL", "cl.Program.compile", options, log, source)
            })
        })();
        for header in header_programs {
            self.release_program(h(header));
        }
        match built {
            Ok(()) => Ok(h(program)),
            Err(e) => {
                self.release_program(h(program));
                Err(e)
            }
        }
    }

    /// Links compiled objects (and libraries) into an executable program: a module handle.
    pub fn link_objects(&self, objects: &[Handle], options: &[String]) -> Result<Handle> {
        if objects.is_empty() {
            return Err(Error::Value(
                "link_program needs at least one compiled program".into(),
            ));
        }
        let programs: Vec<cl_program> = objects.iter().map(|&o| p(o)).collect();
        let joined = c_text(&options.join(" "), "link options")?;
        unsafe {
            pg::link_program(
                self.context(),
                &[self.device_id()],
                &joined,
                &programs,
                None,
                ptr::null_mut(),
            )
        }
        .map(h)
        .map_err(|code| {
            let log = format!(
                "clLinkProgram returned {}; check that every function a kernel calls is defined in exactly one of the linked programs",
                cl3::error_codes::error_text(code)
            );
            Error::compile("OpenCL", "cl.link_program", options, log, "")
        })
    }

    /// Drops ember's reference to a program (a compiled object or a module).
    pub fn release_program(&self, program: Handle) {
        unsafe {
            let _ = pg::release_program(p(program));
        }
    }

    /// The driver's build log of `program` on this device.
    pub(super) fn build_log(&self, program: cl_program) -> String {
        match pg::get_program_build_info(program, self.device_id(), pg::CL_PROGRAM_BUILD_LOG) {
            Ok(InfoType::VecUchar(b)) => String::from_utf8_lossy(&b)
                .trim_end_matches('\0')
                .to_string(),
            _ => String::new(),
        }
    }
}
