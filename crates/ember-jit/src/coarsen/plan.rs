//! A coarsening variant: which axis, by how much, and where each logical thread sits.

/// Where logical thread `k` of a hardware thread sits along the coarsened axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mapping {
    /// `t + k * hardware_block`: rows of a tile, whose copies share column loads.
    Strided,
    /// `t * factor + k`: neighbouring elements, whose loads merge into vectors.
    Adjacent,
}

/// One coarsened variant of a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Plan {
    /// 0, 1, 2 for x, y, z.
    pub axis: usize,
    pub factor: u32,
    pub mapping: Mapping,
    /// Every array argument's data is 16-byte aligned (CUDA tells the C compiler so).
    pub aligned: bool,
}

impl Plan {
    /// x coarsens neighbours (vector loads), y and z rows (shared loads).
    pub fn new(axis: usize, factor: u32, aligned: bool) -> Plan {
        Plan {
            axis,
            factor,
            mapping: if axis == 0 {
                Mapping::Adjacent
            } else {
                Mapping::Strided
            },
            aligned,
        }
    }

    /// `"x4"`, `"y2"`, `"x4a"` (aligned): x coarsens neighbours, y and z rows.
    pub fn parse(text: &str) -> Option<Plan> {
        let (text, aligned) = match text.strip_suffix('a') {
            Some(t) => (t, true),
            None => (text, false),
        };
        let mut chars = text.chars();
        let axis = match chars.next()? {
            'x' => 0,
            'y' => 1,
            'z' => 2,
            _ => return None,
        };
        let factor: u32 = chars.as_str().parse().ok()?;
        if !(2..=16).contains(&factor) {
            return None;
        }
        Some(Plan::new(axis, factor, aligned))
    }

    /// How `parse` spells it (for `inspect_c` keys and cache labels).
    pub fn label(&self) -> String {
        format!(
            "{}{}{}",
            ["x", "y", "z"][self.axis],
            self.factor,
            if self.aligned { "a" } else { "" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_parse_and_print_back() {
        for text in ["x4", "y2", "x2a", "z16"] {
            assert_eq!(Plan::parse(text).map(|p| p.label()), Some(text.to_string()));
        }
        assert_eq!(
            Plan::parse("x4").map(|p| p.mapping),
            Some(Mapping::Adjacent)
        );
        assert_eq!(Plan::parse("y2").map(|p| p.mapping), Some(Mapping::Strided));
        for bad in ["", "x", "x1", "x17", "w2", "y2b", "2x"] {
            assert_eq!(Plan::parse(bad), None, "{bad}");
        }
    }
}
