//! Inductor's fusion knobs and its ranking of candidate pairs (choices.py
//! `score_fusion`, `FusionScore.__lt__`; seed 000 §7.4), as plain data.

use std::cmp::Ordering;

/// The knobs of `--inductor-fuse` (defaults = Inductor's config).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FusionConfig {
    /// `max_fusion_size`: nodes per kernel.
    pub max_fusion_size: usize,
    /// `score_fusion_memory_threshold`: bytes a horizontal pair must share.
    pub score_threshold: u64,
    /// `max_fusion_buffer_group_pairwise_attempts`.
    pub pairwise_attempts: usize,
    /// Rounds of `fuse_nodes_once`.
    pub max_rounds: usize,
    /// `aggressive_fusion`.
    pub aggressive: bool,
    /// `loop_ordering_after_fusion` (on by default since torch 2.6 outside fbcode): an
    /// extra round in which a pointwise node's loops may be reordered to share data,
    /// on targets where Inductor does it ([`crate::backend::InductorBackend::reorders_loops`]).
    pub loop_ordering: bool,
    /// Whether rejected pairs are recorded in the plan (for reports and remarks); off,
    /// the decision is the same and checks whose only effect is a rejection's reason
    /// may be skipped.
    pub record_rejections: bool,
}

/// Inductor's `FusionScore` (choices.py `score_fusion`; seed 000 §7.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FusionScore {
    /// 2 for an ordinary fusion with shared data, 1 otherwise (no templates here).
    pub template: u8,
    /// 1 if both or neither are reductions and memory > 0.
    pub node_type: u8,
    /// Bytes of common dependencies.
    pub memory: u64,
    /// Bytes of buffers both read at different indices (only when memory is 0).
    pub buffer_overlap: u64,
    /// `-max(|min1 - max2|, |min2 - max1|)`.
    pub proximity: i64,
}

impl FusionScore {
    /// `FusionScore.__lt__` as an ordering: template first; when one memory score is
    /// more than 16x the other, memory decides; else (node_type, memory, overlap,
    /// proximity). Which rule applies is symmetric in the two scores, so `Less` here is
    /// exactly `self < other` and `Equal` is "neither is less".
    pub fn compare(&self, other: &FusionScore) -> Ordering {
        if self.template != other.template {
            return self.template.cmp(&other.template);
        }
        let (hi, lo) = (self.memory.max(other.memory), self.memory.min(other.memory));
        if hi > lo.saturating_mul(16) {
            return self.memory.cmp(&other.memory);
        }
        (self.node_type, self.memory, self.buffer_overlap, self.proximity).cmp(&(
            other.node_type,
            other.memory,
            other.buffer_overlap,
            other.proximity,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fusion_score_uses_the_16x_memory_rule() {
        let base = FusionScore {
            template: 2,
            node_type: 1,
            memory: 100,
            buffer_overlap: 0,
            proximity: -1,
        };
        let big_memory = FusionScore {
            node_type: 0,
            memory: 2000,
            ..base
        };
        let close_memory = FusionScore {
            node_type: 0,
            memory: 1000,
            ..base
        };
        // 2000 > 16 * 100: memory decides although node_type is lower.
        assert_eq!(base.compare(&big_memory), Ordering::Less);
        // 1000 <= 16 * 100: node_type decides first.
        assert_eq!(close_memory.compare(&base), Ordering::Less);
        let prologue = FusionScore {
            template: 0,
            memory: 1 << 30,
            ..base
        };
        assert_eq!(prologue.compare(&base), Ordering::Less);
        // The ordering agrees with `__lt__` both ways, and equal scores are Equal.
        assert_eq!(big_memory.compare(&base), Ordering::Greater);
        assert_eq!(base.compare(&close_memory), Ordering::Greater);
        assert_eq!(base.compare(&base), Ordering::Equal);
    }
}

#[cfg(test)]
mod default_tests {
    use super::FusionConfig;

    #[test]
    fn the_declared_defaults_are_inductors_config() {
        // torch/_inductor/config.py: max_fusion_size = 64,
        // score_fusion_memory_threshold = 10,
        // max_fusion_buffer_group_pairwise_attempts = 64, aggressive_fusion = False,
        // loop_ordering_after_fusion = True; scheduler.py fuses for up to 10 rounds.
        let inductor = FusionConfig {
            max_fusion_size: 64,
            score_threshold: 10,
            pairwise_attempts: 64,
            max_rounds: 10,
            aggressive: false,
            loop_ordering: true,
            record_rejections: true,
        };
        assert_eq!(FusionConfig::default(), inductor);
    }
}
