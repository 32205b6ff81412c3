//! GE AutoFuse's switches as Ascend users write them (`AUTOFUSE_FLAGS`; here
//! `FUSELAB_ASCEND_FLAGS` or the pass option `flags`):
//! `--enable_autofuse=true;--autofuse_enable_pass=reduce,concat;--autofuse_disable_pass=slice`.
//! Rules: flags are `;`-separated `--name=value`; `enable_autofuse` is `true` or
//! `false` (`false`: the debug switch, no fusion at all); a pass named in both lists is
//! an error; elementwise and broadcast fusion cannot be disabled; reduce, concat, slice,
//! gather and transpose fusion are off unless enabled.

use super::autofuse::{FusionPass, PassSet};

/// The switches' meaning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Switches {
    /// `--enable_autofuse`.
    pub enabled: bool,
    /// The fusion passes on.
    pub passes: PassSet,
}

impl Default for Switches {
    fn default() -> Self {
        Self {
            enabled: true,
            passes: PassSet::default(),
        }
    }
}

/// Parses `text` (empty: the defaults).
pub fn parse(text: &str) -> Result<Switches, String> {
    let mut switches = Switches::default();
    let mut enabled_list: Vec<FusionPass> = Vec::new();
    let mut disabled_list: Vec<FusionPass> = Vec::new();
    for flag in text.split(';').map(str::trim).filter(|f| !f.is_empty()) {
        let Some((name, value)) = flag.strip_prefix("--").and_then(|f| f.split_once('=')) else {
            return Err(format!("'{flag}' is not --name=value"));
        };
        match name {
            "enable_autofuse" => {
                switches.enabled = match value {
                    "true" => true,
                    "false" => false,
                    _ => return Err(format!("--enable_autofuse expects true or false, not '{value}'")),
                }
            }
            "autofuse_enable_pass" | "autofuse_disable_pass" => {
                let list = if name == "autofuse_enable_pass" {
                    &mut enabled_list
                } else {
                    &mut disabled_list
                };
                for pass in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    let Some(pass) = FusionPass::from_name(pass) else {
                        let known: Vec<&str> = FusionPass::ALL.iter().map(|p| p.name()).collect();
                        return Err(format!(
                            "--{name}: unknown fusion pass '{pass}' (known: {})",
                            known.join(", ")
                        ));
                    };
                    list.push(pass);
                }
            }
            _ => {
                return Err(format!(
                    "unknown flag '--{name}' (known: --enable_autofuse, --autofuse_enable_pass, --autofuse_disable_pass)"
                ))
            }
        }
    }
    if let Some(both) = enabled_list.iter().find(|p| disabled_list.contains(p)) {
        return Err(format!(
            "fusion pass '{}' is both enabled and disabled",
            both.name()
        ));
    }
    if let Some(fixed) = disabled_list.iter().find(|p| !p.can_disable()) {
        return Err(format!("{} fusion cannot be disabled", fixed.name()));
    }
    switches.passes.0.extend(enabled_list);
    for pass in disabled_list {
        switches.passes.0.remove(&pass);
    }
    Ok(switches)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(s: &Switches) -> Vec<&'static str> {
        s.passes.0.iter().map(|p| p.name()).collect()
    }

    #[test]
    fn defaults_and_lists() {
        let d = parse("").expect("empty");
        assert!(d.enabled);
        assert_eq!(on(&d), ["elementwise", "broadcast"]);
        let s = parse("--enable_autofuse=true;--autofuse_enable_pass=reduce,concat").expect("valid");
        assert_eq!(on(&s), ["elementwise", "broadcast", "reduce", "concat"]);
        let s = parse("--autofuse_enable_pass=reduce,transpose;--autofuse_disable_pass=transpose ");
        assert_eq!(
            s.expect_err("both"),
            "fusion pass 'transpose' is both enabled and disabled"
        );
        let s = parse("--autofuse_disable_pass=gather").expect("off already");
        assert_eq!(on(&s), ["elementwise", "broadcast"]);
        assert!(!parse("--enable_autofuse=false").expect("debug switch").enabled);
    }

    #[test]
    fn errors_name_the_flag() {
        assert_eq!(
            parse("--autofuse_disable_pass=elementwise").expect_err("fixed"),
            "elementwise fusion cannot be disabled"
        );
        assert_eq!(
            parse("--autofuse_disable_pass=broadcast").expect_err("fixed"),
            "broadcast fusion cannot be disabled"
        );
        assert!(parse("--autofuse_enable_pass=matmul")
            .expect_err("unknown")
            .starts_with("--autofuse_enable_pass: unknown fusion pass 'matmul'"));
        assert!(parse("--enable_autofuse=yes")
            .expect_err("bool")
            .contains("true or false"));
        assert!(parse("enable_autofuse=true")
            .expect_err("syntax")
            .contains("--name=value"));
        assert!(parse("--max_fusion=3")
            .expect_err("flag")
            .starts_with("unknown flag '--max_fusion'"));
    }
}
