// A polite live region in the page: a screen reader hears the sentence a run hands it when it
// differs from the last one (what the control just changed, once per change). The first run's
// sentence is not said: the page's description is read first, and the page shows the rest.
export default function ({ data, parentElement }) {
  let box = parentElement.specvizHeard;
  if (!box) {
    box = parentElement.specvizHeard = document.createElement("p");
    box.setAttribute("role", "status");
    box.said = data;
    parentElement.append(box);
  } else if (data !== box.said) {
    box.said = data;
    box.textContent = data;
  }
}
