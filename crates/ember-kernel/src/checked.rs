//! Checked mode at launch: whether kernels are compiled with index checks, and the launch of
//! a checked kernel (its fault record passed, read back after it, cleared for the next).
//! The device side is `ember_codegen::checked`.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

use ember_codegen::checked::RECORD_BYTES;
use ember_core::{Config, Result};
use ember_runtime::{Device, Handle, KernelArg};

/// `set_checked`'s override of `EMBER_CHECKED`: 0 none, 1 on, 2 off.
static OVERRIDE: AtomicU8 = AtomicU8::new(0);

/// Whether kernels compiled now check their indices: `EMBER_CHECKED`, unless a test set it.
pub fn checked() -> Result<bool> {
    match OVERRIDE.load(Ordering::Relaxed) {
        1 => Ok(true),
        2 => Ok(false),
        _ => Ok(Config::get()?.checked),
    }
}

/// Overrides `EMBER_CHECKED` (`None`: follow it again); returns the previous override.
pub fn set_checked(on: Option<bool>) -> Option<bool> {
    let code = match on {
        None => 0,
        Some(true) => 1,
        Some(false) => 2,
    };
    match OVERRIDE.swap(code, Ordering::Relaxed) {
        1 => Some(true),
        2 => Some(false),
        _ => None,
    }
}

/// The first out-of-bounds access a checked launch met.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The site's number, as the kernel's writer numbered its checked accesses.
    pub site: u32,
    pub index: i64,
    /// The extent the index was checked against.
    pub extent: i64,
    pub block: [u32; 3],
    pub thread: [u32; 3],
}

impl Fault {
    fn decode(bytes: &[u8]) -> Option<Fault> {
        let word = |k: usize| u32::from_le_bytes(bytes[4 * k..4 * k + 4].try_into().unwrap());
        let long = |k: usize| i64::from_le_bytes(bytes[8 * k..8 * k + 8].try_into().unwrap());
        let claimed = word(0);
        (claimed != 0).then(|| Fault {
            site: claimed - 1,
            index: long(1),
            extent: long(2),
            block: [word(6), word(7), word(8)],
            thread: [word(9), word(10), word(11)],
        })
    }

    /// Where it happened, as a message ends: "block (2, 0, 0), thread (17, 0, 0)".
    pub fn place(&self) -> String {
        let [b0, b1, b2] = self.block;
        let [t0, t1, t2] = self.thread;
        format!("block ({b0}, {b1}, {b2}), thread ({t0}, {t1}, {t2})")
    }
}

/// A device's fault record: device memory of its own (outside the pool, whose statistics
/// count the user's arrays), kept for the process.
struct Record {
    ordinal: usize,
    /// The device's epoch it was made in: a reset loses it with the context.
    epoch: u64,
    handle: Handle,
}

/// Each device's fault record; one checked launch at a time uses it (checked mode is for
/// finding bugs, and reads the record back after every launch anyway).
static RECORDS: Mutex<Vec<Record>> = Mutex::new(Vec::new());

/// Runs `launch` (which passes the record it is given as the kernel's last argument) on
/// `stream`, waits for it and returns the fault it recorded, if any.
pub fn launch_checked(
    device: &'static Device,
    stream: Handle,
    launch: impl FnOnce(KernelArg<'static>) -> Result<()>,
) -> Result<Option<Fault>> {
    let mut records = RECORDS.lock().unwrap_or_else(|e| e.into_inner());
    let (ordinal, epoch) = (device.info().ordinal, device.epoch());
    let handle = match records
        .iter()
        .find(|r| r.ordinal == ordinal && r.epoch == epoch)
    {
        Some(r) => r.handle,
        None => {
            let handle = device.backend().alloc(RECORD_BYTES)?;
            clear(device, handle, device.default_stream())?;
            records.retain(|r| r.ordinal != ordinal);
            records.push(Record {
                ordinal,
                epoch,
                handle,
            });
            handle
        }
    };
    launch(KernelArg::Buffer { handle, offset: 0 })?;
    let mut bytes = [0u8; 48];
    device.backend().copy_dtoh(&mut bytes, handle, 0, stream)?;
    let fault = Fault::decode(&bytes);
    if fault.is_some() {
        clear(device, handle, stream)?;
    }
    Ok(fault)
}

fn clear(device: &Device, record: Handle, stream: Handle) -> Result<()> {
    device
        .backend()
        .copy_htod(record, 0, &[0u8; RECORD_BYTES], stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_decodes_to_its_fault() {
        let mut bytes = [0u8; 48];
        assert_eq!(Fault::decode(&bytes), None);
        bytes[0..4].copy_from_slice(&8u32.to_le_bytes());
        bytes[8..16].copy_from_slice(&(-3i64).to_le_bytes());
        bytes[16..24].copy_from_slice(&10i64.to_le_bytes());
        for (k, v) in [2u32, 1, 0, 17, 3, 0].iter().enumerate() {
            bytes[24 + 4 * k..28 + 4 * k].copy_from_slice(&v.to_le_bytes());
        }
        let f = Fault::decode(&bytes).unwrap();
        assert_eq!((f.site, f.index, f.extent), (7, -3, 10));
        assert_eq!(f.place(), "block (2, 1, 0), thread (17, 3, 0)");
    }

    #[test]
    fn the_override_wins_over_the_environment_and_can_be_lifted() {
        let before = set_checked(Some(true));
        assert!(checked().unwrap());
        assert_eq!(set_checked(Some(false)), Some(true));
        assert!(!checked().unwrap());
        assert_eq!(set_checked(before), Some(false));
    }
}
