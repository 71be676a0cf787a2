//! Compiles the gRPC contracts with protox (pure Rust, no protoc) and writes the file
//! descriptor sets that server reflection serves: checkraise's own contract
//! (`proto/checkraise`) and DeepMind's dm_env_rpc protocol, vendored unmodified under
//! `proto/third_party` (see its README for the upstream commits and licences).

use std::path::{Path, PathBuf};

use prost::Message;

fn compile(file: &Path, root: &Path, descriptor: &str) -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed={}", file.display());
    let fds = protox::compile([file], [root])?;
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out_dir.join(descriptor), fds.encode_to_vec())?;
    tonic_prost_build::configure().compile_fds(fds)?;
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto_root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../proto");
    compile(
        &proto_root.join("checkraise/v1/checkraise.proto"),
        &proto_root,
        "checkraise_descriptor.bin",
    )?;
    let third_party = proto_root.join("third_party");
    println!(
        "cargo:rerun-if-changed={}",
        third_party.join("google/rpc/status.proto").display()
    );
    compile(
        &third_party.join("dm_env_rpc/v1/dm_env_rpc.proto"),
        &third_party,
        "dm_env_rpc_descriptor.bin",
    )?;
    Ok(())
}
