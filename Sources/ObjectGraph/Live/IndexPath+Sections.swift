import Foundation

#if !canImport(UIKit) && !canImport(AppKit)
extension IndexPath {
    /// An index path of an item in a section, as UIKit and AppKit spell it on Apple platforms.
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// The section: the first index.
    public var section: Int { self[0] }

    /// The item within the section: the second index.
    public var item: Int { self[1] }
}
#endif

extension IndexPath {
    /// Builds an index path without the platform-specific initialiser.
    init(sectionIndex: Int, itemIndex: Int) {
        self.init(indexes: [sectionIndex, itemIndex])
    }
}
