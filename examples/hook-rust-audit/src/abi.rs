//! Hand-written bindings to the parts of amplifier_plugin.h this module uses.
//! Every struct is `#[repr(C)]` with the header's field order. Tables the host owns
//! (AmpHostApi) are only read through a pointer, so declaring their leading fields is enough:
//! the header promises tables only grow at the end.
use std::os::raw::{c_char, c_int, c_void};

pub const ABI_MAJOR: u32 = 1;
pub const ABI_MINOR: u32 = 2;

pub type AmpStatus = c_int; // amp_status: a 32-bit enum
pub const AMP_OK: AmpStatus = 0;
pub const AMP_ERROR: AmpStatus = 1;
pub const AMP_INVALID_ARGUMENT: AmpStatus = 3;

pub const AMP_KIND_HOOK: c_int = 5;
pub const AMP_LOG_INFO: c_int = 1;
pub const AMP_LOG_ERROR: c_int = 3;

/// Opaque host context of one instance (amp_host).
#[repr(C)]
pub struct AmpHost {
    _private: [u8; 0],
}

/// A borrowed UTF-8 view (amp_str): valid for the current call only.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct AmpStr {
    pub data: *const c_char,
    pub len: usize,
}

impl AmpStr {
    pub fn of(text: &str) -> AmpStr {
        AmpStr { data: text.as_ptr() as *const c_char, len: text.len() }
    }
    /// The bytes, borrowed for the call that passed them.
    pub unsafe fn bytes<'a>(self) -> &'a [u8] {
        if self.data.is_null() || self.len == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(self.data as *const u8, self.len)
        }
    }
}

/// A host-owned output (amp_writer): the module appends, the host copies.
#[repr(C)]
pub struct AmpWriter {
    pub host_data: *mut c_void,
    pub write: Option<unsafe extern "C" fn(*mut AmpWriter, *const c_char, usize)>,
}

pub type AmpHookFn =
    unsafe extern "C" fn(*mut c_void, AmpStr, AmpStr, *mut AmpWriter) -> AmpStatus;

/// The leading fields of amp_host_api, up to the last one this module calls.
#[repr(C)]
pub struct AmpHostApi {
    pub struct_size: usize,
    pub abi_major: u32,
    pub abi_minor: u32,
    pub log: unsafe extern "C" fn(*mut AmpHost, c_int, AmpStr),
    pub config_get: unsafe extern "C" fn(*mut AmpHost, AmpStr, *mut AmpWriter) -> AmpStatus,
    pub session_info: *const c_void,
    pub emit: *const c_void,
    pub hook_register: unsafe extern "C" fn(
        *mut AmpHost,
        AmpStr,
        i32,
        AmpStr,
        AmpHookFn,
        *mut c_void,
    ) -> AmpStatus,
    pub hook_unregister: unsafe extern "C" fn(*mut AmpHost, AmpStr) -> AmpStatus,
}

/// amp_hook_vtable: only its size, so it can grow.
#[repr(C)]
pub struct AmpHookVtable {
    pub struct_size: usize,
}

pub type CreateFn =
    unsafe extern "C" fn(*mut AmpHost, AmpStr, *mut *mut c_void, *mut AmpWriter) -> AmpStatus;

/// amp_module_descriptor (ABI 1.2 layout).
#[repr(C)]
pub struct AmpModuleDescriptor {
    pub struct_size: usize,
    pub abi_major: u32,
    pub abi_minor: u32,
    pub id: *const c_char,
    pub version: *const c_char,
    pub description: *const c_char,
    pub kind: c_int,
    pub create: CreateFn,
    pub session_ready: Option<unsafe extern "C" fn(*mut c_void, *mut AmpWriter) -> AmpStatus>,
    pub destroy: unsafe extern "C" fn(*mut c_void),
    pub kind_table: *const c_void,
    pub min_host_minor: u32,
}

// The descriptor is immutable static data; the raw pointers in it point at other statics.
unsafe impl Sync for AmpModuleDescriptor {}

/// Appends `bytes` to a host writer (a NULL writer is allowed and ignored).
pub unsafe fn write_to(out: *mut AmpWriter, bytes: &[u8]) {
    if let Some(writer) = out.as_mut() {
        if let Some(write) = writer.write {
            write(out, bytes.as_ptr() as *const c_char, bytes.len());
        }
    }
}

/// An AmpWriter that collects into a Vec, for host functions that answer through one.
#[repr(C)]
pub struct VecWriter {
    pub writer: AmpWriter, // first, so *mut VecWriter is a *mut AmpWriter
    pub bytes: Vec<u8>,
}

impl VecWriter {
    pub fn new() -> Box<VecWriter> {
        let mut boxed = Box::new(VecWriter {
            writer: AmpWriter { host_data: std::ptr::null_mut(), write: Some(Self::append) },
            bytes: Vec::new(),
        });
        let self_ptr: *mut VecWriter = &mut *boxed;
        boxed.writer.host_data = self_ptr as *mut c_void;
        boxed
    }
    pub fn as_writer(&mut self) -> *mut AmpWriter {
        &mut self.writer
    }
    unsafe extern "C" fn append(w: *mut AmpWriter, data: *const c_char, len: usize) {
        let this = (*w).host_data as *mut VecWriter;
        if !data.is_null() && len > 0 {
            (*this).bytes.extend_from_slice(std::slice::from_raw_parts(data as *const u8, len));
        }
    }
}
