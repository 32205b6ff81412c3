//! The Spyre target (IBM's Spyre accelerator as torch-spyre drives it): stick layouts
//! ([`layout`]), work division over its cores ([`divide_work`]) and scratchpad (LX)
//! planning ([`scratchpad`]), each as plain data.

pub mod divide_work;
pub mod layout;
pub mod scratchpad;
