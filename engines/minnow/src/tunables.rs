//! The `tunables!` macro: one declaration per tunable yields the compiled constant, its
//! runtime copy (a field of `Tunables`) and its UCI option with the option's range.
//!
//! ```ignore
//! tunables! {
//!     #[range(0, 1000)]
//!     pub const BETA_PRUNE_MARGIN_PER_DEPTH: Score = 90;
//! }
//! ```
//!
//! The declarations stay plain `pub const` items, so the SPSA tool's rewriter (which edits
//! their literals) and `spsa init` read them as before. Option names: scalar `NAME`; array
//! element `NAME_<i>`; (mg, eg) tuple `NAME_MG` / `NAME_EG`; array of tuples `NAME_<i>_MG`;
//! floats are spin options scaled by 100 (`LMR_BASE_X100 = 75` means 0.75). The range
//! applies to every element, in the constant's own units. Every declaration needs one;
//! doc comments go before it.

/// A constant's type, and the type of its runtime copy (integers widen to i32).
pub trait Tunable: Copy {
    type Runtime: Options;
    fn runtime(self) -> Self::Runtime;
}

impl Tunable for u8 {
    type Runtime = i32;
    fn runtime(self) -> i32 {
        self as i32
    }
}

impl Tunable for u32 {
    type Runtime = i32;
    fn runtime(self) -> i32 {
        self as i32
    }
}

impl Tunable for i32 {
    type Runtime = i32;
    fn runtime(self) -> i32 {
        self
    }
}

impl Tunable for f64 {
    type Runtime = f64;
    fn runtime(self) -> f64 {
        self
    }
}

impl Tunable for (i32, i32) {
    type Runtime = (i32, i32);
    fn runtime(self) -> (i32, i32) {
        self
    }
}

impl<T: Tunable, const N: usize> Tunable for [T; N] {
    type Runtime = [T::Runtime; N];
    fn runtime(self) -> Self::Runtime {
        self.map(T::runtime)
    }
}

/// Where one UCI option's value lives.
pub enum Slot<'a> {
    Int(&'a mut i32),
    /// Exposed scaled by 100.
    Float(&'a mut f64),
}

/// One UCI spin option: name, value, and range in the value's own units.
pub struct Spin<'a> {
    pub name: String,
    pub slot: Slot<'a>,
    pub min: f64,
    pub max: f64,
}

impl Spin<'_> {
    /// (default, min, max) as the `option` line shows them.
    pub fn shown(&self) -> (i64, i64, i64) {
        match &self.slot {
            Slot::Int(v) => (**v as i64, self.min as i64, self.max as i64),
            Slot::Float(v) => ((**v * 100.0).round() as i64, (self.min * 100.0).round() as i64, (self.max * 100.0).round() as i64),
        }
    }

    /// Sets the value from a `setoption` value (option units), clamped to the range.
    pub fn set(&mut self, x: f64) {
        match &mut self.slot {
            Slot::Int(v) => **v = (x.round() as i64).clamp(self.min as i64, self.max as i64) as i32,
            Slot::Float(v) => **v = (x / 100.0).clamp(self.min, self.max),
        }
    }
}

/// The UCI options of a runtime value, named from its constant's name.
pub trait Options {
    fn options<'a>(&'a mut self, name: String, min: f64, max: f64, out: &mut Vec<Spin<'a>>);
}

impl Options for i32 {
    fn options<'a>(&'a mut self, name: String, min: f64, max: f64, out: &mut Vec<Spin<'a>>) {
        out.push(Spin { name, slot: Slot::Int(self), min, max });
    }
}

impl Options for f64 {
    fn options<'a>(&'a mut self, name: String, min: f64, max: f64, out: &mut Vec<Spin<'a>>) {
        out.push(Spin { name: format!("{name}_X100"), slot: Slot::Float(self), min, max });
    }
}

impl Options for (i32, i32) {
    fn options<'a>(&'a mut self, name: String, min: f64, max: f64, out: &mut Vec<Spin<'a>>) {
        self.0.options(format!("{name}_MG"), min, max, out);
        self.1.options(format!("{name}_EG"), min, max, out);
    }
}

impl<T: Options, const N: usize> Options for [T; N] {
    fn options<'a>(&'a mut self, name: String, min: f64, max: f64, out: &mut Vec<Spin<'a>>) {
        for (i, x) in self.iter_mut().enumerate() {
            x.options(format!("{name}_{i}"), min, max, out);
        }
    }
}

/// Declares the tunables: see the module documentation.
macro_rules! tunables {
    ($($(#[doc = $doc:literal])* #[range($min:expr, $max:expr)] pub const $name:ident: $ty:ty = $value:expr;)*) => {
        $($(#[doc = $doc])* pub const $name: $ty = $value;)*

        /// The runtime copy of every tunable: the compiled value until a UCI option sets it.
        #[allow(non_snake_case)]
        pub struct Tunables {
            $(pub $name: <$ty as $crate::tunables::Tunable>::Runtime,)*
        }

        impl Default for Tunables {
            fn default() -> Self {
                Tunables { $($name: $crate::tunables::Tunable::runtime($name),)* }
            }
        }

        impl Tunables {
            /// Every UCI option, in declaration order.
            pub fn spins(&mut self) -> Vec<$crate::tunables::Spin<'_>> {
                let mut out = Vec::new();
                $($crate::tunables::Options::options(&mut self.$name, stringify!($name).to_string(), ($min) as f64, ($max) as f64, &mut out);)*
                out
            }
        }
    };
}
