//! What the lessons panel and its predictions ask the frame loop to do.

/// What the lessons panel asks the frame loop to do.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LessonAction {
    /// Answer the shown step's prediction with this number.
    Guess(f64),
    /// Show the shown step's answer without a guess.
    Reveal,
    /// Start lesson `i` of the list at its first step.
    Open(usize),
    /// Go to the next step (or the summary after the last).
    Next,
    /// Go to the previous step.
    Back,
    /// Forget the measurements and start again at the first step.
    Restart,
    /// Measure the whole lesson again.
    Measure,
    /// Cancel the lesson's measurement.
    Cancel,
    /// Put the step's settings back (after the user changed them).
    Restore,
    /// Back to the list of lessons.
    List,
    /// Copy the lesson's texts and table as Markdown to the clipboard.
    CopyMarkdown,
    /// Save the lesson's table as CSV in the current folder.
    SaveCsv,
    /// Save the lesson as JSON in the current folder.
    SaveJson,
    /// Save the chart alone as a PNG in the current folder.
    SaveChart,
}
