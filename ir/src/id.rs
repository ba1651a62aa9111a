//! Small typed handles: SPIR-V result ids and indices into the module's arenas.

use std::fmt;
use std::num::NonZeroU32;

/// A SPIR-V result id (`%N`). Never zero.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(NonZeroU32);

impl Id {
    /// The id with number `n`, or `None` for 0.
    pub fn new(n: u32) -> Option<Id> {
        NonZeroU32::new(n).map(Id)
    }
    /// The id's number, as written in SPIR-V words.
    pub fn word(self) -> u32 {
        self.0.get()
    }
    /// The id as an index into dense per-id side tables.
    pub fn index(self) -> usize {
        self.0.get() as usize
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}

macro_rules! entity {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        ///
        /// Stored as position + 1 in a `NonZeroU32`, so `Option<Self>` is 4 bytes.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(NonZeroU32);
        impl $name {
            /// Position in its arena.
            pub fn index(self) -> usize {
                self.0.get() as usize - 1
            }
            /// The handle at arena position `i` (below `u32::MAX`).
            pub fn from_index(i: usize) -> Self {
                $name(NonZeroU32::new(i as u32 + 1).expect("arena index below u32::MAX"))
            }
        }
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($name), self.index())
            }
        }
    };
}

entity!(
    /// An instruction in the module's instruction arena.
    InstId
);
entity!(
    /// A basic block (its `OpLabel` and body) in the module's block arena.
    BlockId
);
entity!(
    /// A function, by position in `Module::functions`.
    FuncId
);
