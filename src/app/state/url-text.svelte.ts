/**
 * A text box that follows a URL parameter: the box shows the parameter (back / forward,
 * links), and typing writes it back after a short pause. Create it while a component
 * initialises (it owns an effect).
 */
export class UrlText {
  /** What the box shows (bind it to the input). */
  text = $state('');
  #typedFor = '';
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    read: () => string,
    private readonly write: (text: string) => void,
    private readonly delay = 150,
  ) {
    $effect.pre(() => {
      const q = read();
      if (q !== this.#typedFor) this.text = q;
      this.#typedFor = q;
    });
    // A write still waiting when the view goes away would pull the person back to it.
    $effect(() => () => clearTimeout(this.#timer));
  }

  /**
   * Call on input: writes the text to the URL once typing pauses — unless the person went to
   * another page meanwhile (a link, back, a new URL): the write would pull them back.
   */
  typed(): void {
    clearTimeout(this.#timer);
    const page = pageOf(location.hash);
    this.#timer = setTimeout(() => {
      if (pageOf(location.hash) === page) this.commit();
    }, this.delay);
  }

  /** Writes the text to the URL now. */
  commit(text = this.text): void {
    clearTimeout(this.#timer);
    this.#typedFor = text;
    this.write(text);
  }
}

/** The page part of a hash route (`#/cases` of `#/cases?q=x`). */
function pageOf(hash: string): string {
  return hash.split('?')[0];
}
