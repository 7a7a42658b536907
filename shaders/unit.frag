#version 100
// Instanced unit fragment shader: the color is lit per vertex (flat-shaded
// meshes give every vertex of a triangle the same value; smooth ones blend).
precision mediump float;

varying vec3 v_color;

void main() {
    gl_FragColor = vec4(v_color, 1.0);
}
