//! hook-rust-audit: a hook module in Rust. It appends every event the session emits to a
//! JSON-lines audit file, one `{"event": NAME, "data": DATA}` line per event, and never
//! changes what happens (it answers "continue" by writing no HookResult).
//!
//! Config: `path` (required): the audit file, created if missing, appended to.
//! It shows the whole ABI from a language other than C or C++: the entry point, a static
//! descriptor, create/destroy, a handler registered through the host table, and strings
//! crossing as (pointer, length) in both directions. Panics never cross into the host
//! (panic = "abort" in Cargo.toml, and every entry catches them anyway).
mod abi;
mod json;

use abi::*;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::raw::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

static mut HOST_API: *const AmpHostApi = std::ptr::null();

struct Audit {
    file: Mutex<File>,
}

fn api() -> &'static AmpHostApi {
    // Set once by the entry point, before the host calls anything else.
    unsafe { &*HOST_API }
}

unsafe fn log(host: *mut AmpHost, level: std::os::raw::c_int, message: &str) {
    (api().log)(host, level, AmpStr::of(message));
}

/// The config's `path`, decoded from its JSON string.
unsafe fn configured_path(host: *mut AmpHost) -> Result<String, String> {
    let mut out = VecWriter::new();
    if (api().config_get)(host, AmpStr::of("path"), out.as_writer()) != AMP_OK {
        return Err("hook-rust-audit needs `path` in its config (the audit file)".to_string());
    }
    match json::decode_string(&out.bytes) {
        Some(path) if !path.is_empty() => Ok(path),
        _ => Err("hook-rust-audit: config `path` must be a non-empty string".to_string()),
    }
}

unsafe extern "C" fn on_event(
    user_data: *mut c_void,
    event: AmpStr,
    data_json: AmpStr,
    _result: *mut AmpWriter,
) -> AmpStatus {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let audit = &*(user_data as *const Audit);
        let mut line = Vec::with_capacity(32 + event.len + data_json.len);
        line.extend_from_slice(b"{\"event\":");
        json::append_quoted(&mut line, event.bytes());
        line.extend_from_slice(b",\"data\":");
        let data = data_json.bytes();
        line.extend_from_slice(if data.is_empty() { b"null" } else { data });
        line.extend_from_slice(b"}\n");
        // One write per line on an O_APPEND file: lines from concurrent emits never interleave.
        match audit.file.lock() {
            Ok(mut file) => file.write_all(&line).is_ok(),
            Err(_) => false,
        }
    }));
    match outcome {
        Ok(true) => AMP_OK,
        _ => AMP_ERROR,
    }
}

unsafe fn create_audit(host: *mut AmpHost) -> Result<Box<Audit>, String> {
    let path = configured_path(host)?;
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| format!("hook-rust-audit: cannot open {}: {}", path, e))?;
    log(host, AMP_LOG_INFO, &format!("hook-rust-audit: auditing events to {}", path));
    Ok(Box::new(Audit { file: Mutex::new(file) }))
}

unsafe extern "C" fn create(
    host: *mut AmpHost,
    _config_json: AmpStr,
    out_instance: *mut *mut c_void,
    error: *mut AmpWriter,
) -> AmpStatus {
    let made = catch_unwind(AssertUnwindSafe(|| create_audit(host)))
        .unwrap_or_else(|_| Err("hook-rust-audit: panicked while starting".to_string()));
    let audit = match made {
        Ok(audit) => Box::into_raw(audit),
        Err(message) => {
            write_to(error, message.as_bytes());
            return AMP_INVALID_ARGUMENT;
        }
    };
    let status = (api().hook_register)(
        host,
        AmpStr::of("*"),
        1000, // late: see events after the hooks that might modify them
        AmpStr::of("audit"),
        on_event,
        audit as *mut c_void,
    );
    if status != AMP_OK {
        drop(Box::from_raw(audit));
        write_to(error, b"hook-rust-audit: the host refused to register the handler");
        log(host, AMP_LOG_ERROR, "hook-rust-audit: hook_register failed");
        return status;
    }
    *out_instance = audit as *mut c_void;
    AMP_OK
}

/// The host unregisters the instance's handlers before destroy, so nothing uses it any more.
unsafe extern "C" fn destroy(instance: *mut c_void) {
    if !instance.is_null() {
        drop(Box::from_raw(instance as *mut Audit));
    }
}

static HOOK_TABLE: AmpHookVtable = AmpHookVtable { struct_size: std::mem::size_of::<AmpHookVtable>() };

static DESCRIPTOR: AmpModuleDescriptor = AmpModuleDescriptor {
    struct_size: std::mem::size_of::<AmpModuleDescriptor>(),
    abi_major: ABI_MAJOR,
    abi_minor: ABI_MINOR,
    id: b"hook-rust-audit\0".as_ptr() as *const c_char,
    version: b"1.0.0\0".as_ptr() as *const c_char,
    description: b"Example hook in Rust: appends every event to a JSON-lines audit file\0".as_ptr()
        as *const c_char,
    kind: AMP_KIND_HOOK,
    create,
    session_ready: None,
    destroy,
    kind_table: &HOOK_TABLE as *const AmpHookVtable as *const c_void,
    min_host_minor: 0, // only 1.0 host functions are used
};

/// The one exported symbol. Refuses a host of another major or one whose table is too short
/// for the functions used (hook_unregister is the last of them).
#[no_mangle]
pub unsafe extern "C" fn amplifier_module_entry(
    host_major: u32,
    _host_minor: u32,
    host_api: *const AmpHostApi,
) -> *const AmpModuleDescriptor {
    if host_major != ABI_MAJOR
        || host_api.is_null()
        || (*host_api).struct_size < std::mem::size_of::<AmpHostApi>()
    {
        return std::ptr::null();
    }
    HOST_API = host_api;
    &DESCRIPTOR
}
